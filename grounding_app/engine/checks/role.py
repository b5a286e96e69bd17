"""The claim's action given to another name in the evidence (`roles.misattributes`)."""

from __future__ import annotations

from grounding_app.engine.checks import ROLE, Check, Reading
from grounding_app.engine.roles import misattributes, proper_names

_MOON = (
    "Neil Armstrong was the first person to walk on the Moon. Buzz Aldrin followed him"
    " about twenty minutes later, while Michael Collins stayed in lunar orbit.",
)
_TITANIC = ("Titanic was directed by James Cameron. Leonardo DiCaprio starred in it.",)


def _fires(reading: Reading) -> bool:
    names = reading.names or proper_names(list(reading.passages))
    return misattributes(reading.claim, reading.passages, names)


CHECK = Check(
    "role",
    ROLE,
    _fires,
    {
        "en": (
            ("Buzz Aldrin was the first person to walk on the Moon.", _MOON, True),
            ("Neil Armstrong was the first person to walk on the Moon.", _MOON, False),
            ("Michael Collins stayed in lunar orbit.", _MOON, False),
            ("Leonardo DiCaprio directed Titanic.", _TITANIC, True),
            ("James Cameron directed Titanic.", _TITANIC, False),
        ),
    },
)
