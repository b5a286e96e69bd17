"""Base direction of untrusted text, decided here because HTML's `dir="auto"` cannot be.

`dir="auto"` takes the first strong letter of an element's text but skips every
descendant that has a `dir` of its own. An answer whose claims are each an isolate with
their own direction would then have no text left to decide by, and a Hebrew answer
would be laid out left to right. So the page states the direction of the answer, of
each claim and of each block (paragraph, list item, heading, cell).

`text_direction` finds it the way the Unicode bidi algorithm finds a paragraph's (rules
P2-P3): the first strong character, skipping isolated runs. That misreads what a
right-to-left reader writes every day: a Hebrew sentence or list item that opens with a
product's name ("Python היא שפת תכנות") would be laid out left to right among
right-aligned lines. So `base_direction`, which the pages use, goes by the script most
of the text's words are written in, and by the first strong character on a tie.
"""

from __future__ import annotations

import unicodedata

_ISOLATE_OPEN = frozenset("\u2066\u2067\u2068")  # LRI, RLI, FSI
_ISOLATE_CLOSE = "\u2069"  # PDI


def text_direction(text: str) -> str:
    """'ltr' or 'rtl' from the first strong character outside isolates; '' if none."""
    depth = 0
    for char in text:
        if char in _ISOLATE_OPEN:
            depth += 1
        elif char == _ISOLATE_CLOSE:
            depth = max(0, depth - 1)
        elif depth == 0:
            kind = unicodedata.bidirectional(char)
            if kind == "L":
                return "ltr"
            if kind in ("R", "AL"):
                return "rtl"
    return ""


def base_direction(text: str) -> str:
    """'ltr' or 'rtl' by the words written in each (a word counts by its first strong
    character; isolated runs are skipped), the first strong character on a tie; '' if
    the text has no strong character."""
    ltr = rtl = depth = 0
    in_word = False
    for char in text:
        if char in _ISOLATE_OPEN:
            depth += 1
        elif char == _ISOLATE_CLOSE:
            depth = max(0, depth - 1)
        if depth or char.isspace() or char in _ISOLATE_OPEN or char == _ISOLATE_CLOSE:
            in_word = False
            continue
        kind = unicodedata.bidirectional(char)
        if kind in ("L", "R", "AL") and not in_word:
            ltr, rtl = (ltr + 1, rtl) if kind == "L" else (ltr, rtl + 1)
            in_word = True
    if ltr == rtl:
        return text_direction(text)
    return "ltr" if ltr > rtl else "rtl"


def dir_attribute(text: str) -> str:
    """` dir="…"` for an element holding `text`, or `dir="auto"` when nothing decides."""
    return f' dir="{base_direction(text) or "auto"}"'
