# ruff: noqa: RUF001, RUF002
"""Token counting for the 4,096-token answer limit (SPEC §1).

SPEC defines a token as "a word or a sentence-ending period". We count, in one regex
pass:

* each maximal run of word characters (``\\w+``, Unicode), except that
* each CJK ideograph or kana is a token of its own (CJK has no spaces, so a whole
  paragraph would otherwise be one "word" and slip past the limit), and
* each sentence-ending mark: the last of a run of . ! ? when followed (after optional
  closing quotes/brackets) by whitespace or the end, and every 。！？｡, which end a
  sentence wherever they stand.
"""

from __future__ import annotations

import re

__all__ = ["count_tokens"]

_CJK = (
    "\u3005-\u3007"  # 々〆〇
    "\u3040-\u30ff"  # hiragana, katakana
    "\u31f0-\u31ff"  # katakana phonetic extensions
    "\u3400-\u4dbf"  # CJK extension A
    "\u4e00-\u9fff"  # CJK unified ideographs
    "\uf900-\ufaff"  # CJK compatibility ideographs
    "\uff66-\uff9f"  # halfwidth katakana
    "\U00020000-\U0003134f"  # CJK extensions B..G
)
_TOKEN = re.compile(
    rf"[{_CJK}]"
    rf"|[^\W{_CJK}]+"
    r"|[.!?](?![.!?])(?=[\"'”’»)\]}]*(?:\s|\Z))"
    r"|[。！？｡]"
)


def count_tokens(text: str) -> int:
    """Number of tokens in ``text`` as SPEC §1 counts them (single regex pass)."""
    # subn counts matches without building match objects: ~1.5x faster than finditer.
    return _TOKEN.subn("", text)[1]
