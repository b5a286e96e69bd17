"""Letters-only words (`lang/text.py`): the runs of letters of each token, cut at its
digits and joiners, in any text and any window of it, whichever way they are read (the
whole text's runs, a window's, the run at a position)."""

from __future__ import annotations

import random

import pytest

from grounding_app.engine.lang.text import Text

CASES = [
    "COVID-19 struck in 2020; the 3rd wave, two-thirds of U.S. states.",
    'צה"ל ובבית 4 ביולי 1950, don\u2019t x\u00b2 \u216b_a',
    "",
    "1997",
]


def _runs(text: str) -> list[tuple[str, int, int]]:
    """Maximal runs of letters, a letter being a word character that is no decimal digit
    (what `[^\\W\\d_]` matches)."""
    runs: list[tuple[str, int, int]] = []
    start = None
    for i, char in enumerate([*text, " "]):
        if char.isalnum() and not char.isdecimal():
            start = i if start is None else start
        elif start is not None:
            runs.append((text[start:i], start, i))
            start = None
    return runs


@pytest.mark.parametrize("text", CASES)
def test_letter_runs_are_the_tokens_cut_at_digits_and_joiners(text: str) -> None:
    assert [tuple(run) for run in Text(text).letter_runs] == _runs(text)


def test_a_window_and_a_position_read_as_the_text_cut_there() -> None:
    rng = random.Random(7)
    alphabet = list("ab Z9_-.,'\u2019\"\u05f4:/\n\u00b2\u216b\u00e9\u05d1\u05e9")
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 24)))
        reading = Text(text)
        start = rng.randint(0, len(text))
        end = rng.randint(start, len(text))
        assert reading.letters(start, end) == [run for run, _, _ in _runs(text[start:end])]
        at = [run for run, begin, _ in _runs(text[start:]) if begin == 0]
        assert reading.letters_at(start) == (at[0] if at else None)


def test_words_without_spans_are_the_tokens_texts() -> None:
    """`words` and `name_words` (no spans: what readers of a long fact's words need) are
    the texts of `word_tokens` and `name_tokens`, in any text."""
    rng = random.Random(11)
    alphabet = list("ab Z9_-.,'\u2019\"\u05f4:/\n\u00b2\u05d1")
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 24)))
        reading = Text(text)
        assert list(reading.words) == [token.text for token in reading.word_tokens]
        assert list(reading.name_words) == [token.text for token in reading.name_tokens]


@pytest.mark.parametrize("text", CASES)
def test_lower_letters_hold_every_run_lower_cased(text: str) -> None:
    reading = Text(text)
    assert {run.text.lower() for run in reading.letter_runs} <= reading.lower_letters
