"""Base direction: the first strong character outside isolates, as UBA rules P2-P3, and
by most words, as the pages state it."""

from __future__ import annotations

import pytest

from grounding_app.rendering.bidi import base_direction, dir_attribute, text_direction


@pytest.mark.parametrize(
    ("text", "direction"),
    [
        ("Paris is big.", "ltr"),
        ("ירושלים היא בירת ישראל.", "rtl"),
        ("القاهرة هي عاصمة مصر.", "rtl"),  # Arabic letters are AL
        ("東京は日本の首都です。", "ltr"),
        ("123, 456. ירושלים", "rtl"),  # digits and punctuation are weak or neutral
        ("«ירושלים» is in Israel", "rtl"),
        ("\u2067English inside an RLI\u2069 שלום", "rtl"),  # isolates are skipped
        ("\u2066\u2067nested\u2069 still inside\u2069 שלום", "rtl"),
        ("\u2069 unmatched PDI first, then English", "ltr"),
        ("\u202eoverride then English", "ltr"),  # embeddings are not skipped
        ("", ""),
        ("123 — 456!", ""),
        ("🍕🍨", ""),
        ("🇮🇹", "ltr"),  # regional indicators are strong left-to-right letters
    ],
)
def test_text_direction(text: str, direction: str) -> None:
    assert text_direction(text) == direction


def test_dir_attribute_falls_back_to_auto() -> None:
    assert dir_attribute("Paris") == ' dir="ltr"'
    assert dir_attribute("שלום") == ' dir="rtl"'
    assert dir_attribute("42") == ' dir="auto"'


@pytest.mark.parametrize(
    ("text", "direction"),
    [
        ("Python היא שפת תכנות פופולרית.", "rtl"),  # a Hebrew sentence opening with a name
        ("JavaScript רצה בכל דפדפן.", "rtl"),
        ("Rust is a systems language.", "ltr"),
        ("«ירושלים» is in Israel", "ltr"),  # an English sentence quoting a Hebrew name
        ("ב-Python 3.12 יש שיפורים.", "rtl"),  # a prefixed word counts by its first letter
        ("שלום. Hello.", "rtl"),  # a tie: the first strong character
        ("Hello. שלום.", "ltr"),
        ("\u2067a b c d\u2069 שלום", "rtl"),  # isolates are skipped
        ("42 — 7!", ""),
        ("", ""),
    ],
)
def test_base_direction_goes_by_most_words(text: str, direction: str) -> None:
    assert base_direction(text) == direction
    assert dir_attribute(text) == f' dir="{direction or "auto"}"'
