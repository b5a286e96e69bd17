"""A record's yes/no the other way round.

The judge reads "outdoor seating: no." as support for "Luigi's has outdoor seating."
(0.91): it never saw a record in training. A claim that names the key's last word
("seating"; a stem sharing its first five letters will do, as "deliv" in "delivers"
for "deliveri" in "delivery") must agree with the answer: negated for "no", not
negated for "yes".
"""

from __future__ import annotations

import re

from grounding_app.engine.checks import CONTRADICTION, Check, Reading
from grounding_app.engine.lexical import content_stems, has_negation

_FLAG = re.compile(r"(?P<key>[^:]+): (?P<answer>yes|no)\.")


def _same_word(a: str, b: str) -> bool:
    """Equal stems, or one the start of the other and five letters or more."""
    short, long = sorted((a, b), key=len)
    return short == long or (len(short) >= 5 and long.startswith(short))


def flag_disagrees(claim: str, statements: tuple[str, ...]) -> bool:
    """Whether a record's yes/no statement says the opposite of the claim about its key."""
    claim_stems = content_stems(claim)
    negated = has_negation(claim)
    for statement in statements:
        flag = _FLAG.fullmatch(statement)
        if flag is None or (flag.group("answer") == "no") == negated:
            continue
        key = content_stems(flag.group("key"))
        if key and any(_same_word(key[-1], word) for word in claim_stems):
            return True
    return False


def _fires(reading: Reading) -> bool:
    return flag_disagrees(reading.claim, reading.statements)


CHECK = Check(
    "record_flag",
    CONTRADICTION,
    _fires,
    {
        "en": (
            ("Luigi's has outdoor seating.", ("attributes Outdoor Seating: no.",), True),
            ("Luigi's does not deliver.", ("attributes Restaurants Delivery: yes.",), True),
            ("Luigi's has no outdoor seating.", ("attributes Outdoor Seating: no.",), False),
            ("Luigi's delivers.", ("attributes Restaurants Delivery: yes.",), False),
            ("Luigi's has free WiFi.", ("attributes Outdoor Seating: no.",), False),
        ),
    },
)
