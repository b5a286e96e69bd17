# ruff: noqa: RUF001
"""Token counting for the 4,096-token answer limit (SPEC §1)."""

from __future__ import annotations

import re
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from grounding_app.engine.lang.tokens import count_tokens


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", 0),
        ("   \n\t ", 0),
        ("Paris", 1),
        ("Paris is big", 3),
        ("Paris is big.", 4),
        ("Paris is big. London too.", 7),
        ("Is it? Yes!", 5),
        ("Really?! Yes...", 4),
        ("Wait... what", 3),
        ("It is 3.5 metres.", 6),
        ("About 1,500 people", 4),
        ("example.com/a.b", 4),
        ('He said "Go." Then left.', 7),
        ("(see Fig. 3).", 5),
        ("Hello.World", 2),
        ("snake_case and C3PO", 3),
        ("don't", 2),
        ("שלום עולם. זה משפט שני.", 7),
        ("Это Москва.", 3),
        ("東京は日本", 5),
        ("東京です。人口は多い。", 11),
        ("本当？はい！", 6),
        ("カタカナ", 4),
        ("서울은 크다.", 3),
        ("I love 🍕. It is 🔥!", 6),
        ("Café\u0301", 1),
        ("— ** …", 0),
    ],
    ids=[
        "empty", "whitespace", "one-word", "three-words", "period", "two-sentences",
        "question-bang", "runs-count-once", "ellipsis-mid", "decimal", "thousands", "url",
        "quote-closer", "paren-closer", "glued-period", "underscore-digits", "apostrophe",
        "hebrew", "russian", "cjk-ideographs", "cjk-terminators", "fullwidth-marks", "katakana",
        "hangul-words", "emoji", "combining", "punctuation-only",
    ],
)  # fmt: skip
def test_count_tokens_table(text: str, expected: int) -> None:
    assert count_tokens(text) == expected


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",))))
def test_count_is_at_least_the_number_of_word_runs(text: str) -> None:
    assert count_tokens(text) >= len(re.findall(r"\w+", text))


@given(st.lists(st.from_regex(r"[A-Za-z]{1,8}", fullmatch=True), max_size=50))
def test_words_joined_by_spaces_count_once_each(words: list[str]) -> None:
    assert count_tokens(" ".join(words)) == len(words)
    assert count_tokens(" ".join(words) + "." if words else "") == len(words) + bool(words)


def test_count_100kb_is_fast() -> None:
    unit = "Titanic was directed by James Cameron, 東京は日本の首都です。 🍕 "
    assert count_tokens(unit) == 6 + 10 + 1
    text = unit * 1_900
    assert len(text) > 95_000
    started = time.perf_counter()
    count = count_tokens(text)
    elapsed = time.perf_counter() - started
    assert count == 1_900 * (6 + 10 + 1)
    assert elapsed < 0.5
