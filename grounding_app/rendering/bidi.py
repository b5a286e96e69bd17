"""Base direction of untrusted text, decided here because HTML's `dir="auto"` cannot be.

`dir="auto"` takes the first strong letter of an element's text but skips every
descendant that has a `dir` of its own. An answer whose claims are each an isolate with
their own direction would then have no text left to decide by, and a Hebrew answer
would be laid out left to right. So the page states the direction of the answer and of
each claim, computed the way the Unicode bidi algorithm finds a paragraph's (rules
P2-P3): the first strong character, skipping isolated runs.
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


def dir_attribute(text: str) -> str:
    """` dir="…"` for an element holding `text`, or `dir="auto"` when nothing decides."""
    return f' dir="{text_direction(text) or "auto"}"'
