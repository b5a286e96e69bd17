"""Search folding: case and accents go, letters that are not accented stay."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from grounding_app.reviews.folding import fold


@pytest.mark.parametrize(
    ("text", "folded"),
    [
        ("Mbappé", "mbappe"),
        ("MBAPPÉ", "mbappe"),
        ("Ångström Łódź čšž", "angstrom łodz csz"),  # Ł is a letter of its own, not L + mark
        ("Œuvre", "œuvre"),
        ("Straße", "strasse"),
        ("STRASSE", "strasse"),
        ("ẞ", "ss"),
        ("İstanbul", "istanbul"),  # Turkish dotted capital I: I + combining dot above
        ("ISTANBUL", "istanbul"),
        ("\u0131l\u0131k", "\u0131l\u0131k"),  # dotless i is a letter of its own
        ("בְּרֵאשִׁית", "בראשית"),  # Hebrew niqqud and dagesh
        ("مُحَمَّد", "محمد"),  # Arabic harakat
        ("ΣΊΣΥΦΟΣ", "σισυφοσ"),
        ("北京是中国的首都", "北京是中国的首都"),
        ("東京タワー", "東京タワー"),
        ("がっこう", "がっこう"),  # kana voicing marks make other letters: kept
        ("ｶﾞｯｺｳ", "ガッコウ"),  # half-width katakana become full-width
        ("한국어", "한국어"),  # Hangul syllables come back whole
        ("🎉 👍🏽 👨\u200d👩\u200d👧 1️⃣", "🎉 👍🏽 👨\u200d👩\u200d👧 1️⃣"),
        ("\ufb01le \uff21\uff42\uff43 \u210c", "file abc h"),  # ligature, full-width, black-letter
        ("", ""),
    ],
)
def test_fold(text: str, folded: str) -> None:
    assert fold(text) == folded


@given(st.text())
def test_folding_twice_changes_nothing(text: str) -> None:
    """The query and the stored text may be folded any number of times."""
    assert fold(fold(text)) == fold(text)
