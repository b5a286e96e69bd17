"""A number the evidence has, given to the wrong word (`lexical.misplaces_number`).

"The movie won 14 Academy Awards." against "won 11 Academy Awards, and was nominated
for fourteen": 14 is there, but as the nominations.
"""

from __future__ import annotations

from grounding_app.engine.checks import CONTRADICTION, Check, Reading
from grounding_app.engine.lexical import misplaces_number

_AWARDS = ("The movie won 11 Academy Awards, and was nominated for fourteen Academy Awards.",)


def _fires(reading: Reading) -> bool:
    return misplaces_number(reading.claim_as_dated, reading.passages)


CHECK = Check(
    "misplaced_number",
    CONTRADICTION,
    _fires,
    {
        "en": (
            ("The movie won 14 Academy Awards.", _AWARDS, True),
            ("The movie was nominated for 11 Academy Awards.", _AWARDS, True),
            ("The movie won 11 Academy Awards.", _AWARDS, False),
            ("The movie was nominated for 14 Academy Awards.", _AWARDS, False),
            (
                "Espanyol extended the streak to six games with a 3-0 win.",
                (
                    "He scored the only goal of the game with five minutes left.",
                    "Getafe moved clear of the bottom three. Espanyol won 3-0 at home.",
                ),
                False,
            ),
            (
                "He was born in 1991 and is a songwriter.",
                ("Edward Sheeran (born 17 February 1991) is an English singer and songwriter.",),
                False,
            ),
            (
                "He was born in 1992 and is a songwriter.",
                ("Edward Sheeran (born 17 February 1991) is a singer. He signed in 1992.",),
                True,
            ),
            (
                "It will increase 50% in 2001.",
                ("A 50 percent increase to $15 million is expected for 2001.",),
                False,
            ),
            (
                "In 2010 it won 3 awards.",
                ("In 2010 it won 3 awards, and in 2012 it won 5.",),
                False,
            ),
            (
                "The bridge is 300 metres long.",
                ("The bridge, 300 metres long, opened in 1932.",),
                False,
            ),
        ),
    },
)
