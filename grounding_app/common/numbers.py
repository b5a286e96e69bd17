"""Numbers posted by forms and pages, read strictly (shared by every app's forms)."""

from __future__ import annotations

import re

# At most 18 digits: every such number fits the 64-bit integer columns of both databases.
_PLAIN_NUMBER = re.compile(r"[0-9]{1,18}")


def plain_number(value: object) -> int | None:
    """`value` as a number if it is written in ASCII digits alone, else None.

    `str.isdigit` accepts "²", which `int` refuses; `int` accepts Arabic-Indic and
    full-width digits, " 1", "+1" and "1_0", which no form of ours sends; and a number
    past SQLite's 64-bit integers makes a query raise OverflowError instead of matching
    nothing.
    """
    if isinstance(value, str) and _PLAIN_NUMBER.fullmatch(value):
        return int(value)
    return None
