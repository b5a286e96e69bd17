"""Another name or number where the claim has one the evidence lacks (`lexical.substitutes`).

"Rome is the capital of Austria." against "Vienna is the capital of Austria.": the
evidence says something else about the claim's words, not something more.
"""

from __future__ import annotations

from grounding_app.engine.checks import CONTRADICTION, Check, Reading
from grounding_app.engine.lexical import substitutes


def _fires(reading: Reading) -> bool:
    return substitutes(reading.claim_as_dated, reading.passages)


CHECK = Check(
    "substitution",
    CONTRADICTION,
    _fires,
    {
        "en": (
            ("Rome is the capital of Austria.", ("Vienna is the capital of Austria.",), True),
            ("It was released in 1975.", ("The movie was released in 1997.",), True),
            ("Vienna is the capital of Austria.", ("Vienna is the capital of Austria.",), False),
            ("It won eleven awards.", ("It won 11 awards.",), False),
            ("The UN was founded in 1945.", ("The United Nations was founded in 1945.",), False),
            # A number the evidence states rounded is no other number in its place.
            ("It has about 2.1 million residents.", ("It has 2,102,650 residents.",), False),
            ("It has about 3.1 million residents.", ("It has 2,102,650 residents.",), True),
        ),
    },
)
