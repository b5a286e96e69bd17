"""Text folding for search, free of Django so that migrations and tests use it as is.

SQLite's LIKE folds ASCII case only and PostgreSQL needs the `unaccent` extension to
ignore accents, so neither database can be asked to match "mbappe" to "Mbappé". Both
sides are folded in Python instead, the stored search text and the query alike.
"""

from __future__ import annotations

import unicodedata

# Kana voicing marks make another letter (か ka, が ga), not an accent that people
# leave out when typing, so they stay.
_KEPT_MARKS = frozenset("\u3099\u309a")


def fold(text: str) -> str:
    """`text` without case or combining marks, so that a plain substring test matches
    regardless of accents: "Mbappé" and "MBAPPE" both give "mbappe", "Straße" gives
    "strasse", Hebrew loses its niqqud.

    Compatibility forms become their plain letters (NFKD: the "ﬁ" ligature is "fi", a
    full-width A is "a"); case folding runs between two decompositions because it can
    both take and give precomposed letters. NFC at the end keeps scripts without marks
    (CJK, Hangul syllables, emoji) as they were.
    """
    decomposed = unicodedata.normalize("NFKD", unicodedata.normalize("NFKD", text).casefold())
    bare = "".join(c for c in decomposed if c in _KEPT_MARKS or not unicodedata.combining(c))
    return unicodedata.normalize("NFC", bare)
