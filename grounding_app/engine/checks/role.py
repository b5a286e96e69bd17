"""The claim's action given to another name in the evidence (`roles.misattributes`)."""

from __future__ import annotations

from grounding_app.engine.checks import ROLE, Check, Reading
from grounding_app.engine.roles import misattributes, proper_names

_MOON = (
    "Neil Armstrong was the first person to walk on the Moon. Buzz Aldrin followed him"
    " about twenty minutes later, while Michael Collins stayed in lunar orbit.",
)
_COUNCIL = (
    "The council approved the budget by a 7-2 vote. Mayor Ana Lopez praised the vote."
    " Council members Omar Haddad and Ruth Klein voted against it.",
)
_TITANIC = ("Titanic was directed by James Cameron. Leonardo DiCaprio starred in it.",)


def _fires(reading: Reading) -> bool:
    """Read in the whole facts where the pipeline gives them: the sentence giving the
    claim's action to someone else ("Reyes and Holt voted against") may lie outside the
    judge's window, which shows the claim's name doing something else."""
    evidence = reading.facts or reading.passages
    names = reading.names or proper_names(list(evidence))
    return misattributes(reading.claim, evidence, names)


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
            ("Mayor Ana Lopez voted against the budget.", _COUNCIL, True),
            ("Omar Haddad voted against the budget.", _COUNCIL, False),
            ("Mayor Ana Lopez praised the vote.", _COUNCIL, False),
        ),
    },
)
