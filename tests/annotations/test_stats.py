"""Agreement statistics against published values and their defining properties."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grounding_app.annotations.stats import (
    cohen_kappa,
    confusion_matrix,
    krippendorff_alpha_nominal,
    majority,
    pairwise_kappa,
)

# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", the example with
# missing values (also on Wikipedia): 4 observers, 12 units; nominal alpha = 0.743.
KRIPPENDORFF_2011 = {
    "A": [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    "B": [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    "C": [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    "D": [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
}


def _units(table: dict[str, list[int | None]]) -> list[list[int]]:
    return [[v for v in column if v is not None] for column in zip(*table.values(), strict=True)]


def test_krippendorff_2011_nominal_example_with_missing_values() -> None:
    assert krippendorff_alpha_nominal(_units(KRIPPENDORFF_2011)) == pytest.approx(0.743, abs=5e-4)


def test_alpha_two_coders_binary_by_hand() -> None:
    # Krippendorff (2011) section B: two observers, binary, 10 units: alpha = 0.095.
    first = [0, 1, 0, 0, 0, 0, 0, 0, 1, 0]
    second = [1, 1, 1, 0, 0, 1, 0, 0, 0, 0]
    units = [list(pair) for pair in zip(first, second, strict=True)]
    assert krippendorff_alpha_nominal(units) == pytest.approx(0.095, abs=5e-4)


def test_alpha_perfect_and_undefined() -> None:
    assert krippendorff_alpha_nominal([["a", "a"], ["b", "b", "b"]]) == 1.0
    assert krippendorff_alpha_nominal([["a", "a"], ["a", "a"]]) is None  # one category only
    assert krippendorff_alpha_nominal([["a"], ["b"]]) is None  # nothing pairable
    assert krippendorff_alpha_nominal([]) is None


def test_cohen_kappa_textbook_example() -> None:
    # 50 proposals read by two editors: 20 yes/yes, 5 yes/no, 10 no/yes, 15 no/no.
    # p_o = 0.7, p_e = 0.5, kappa = 0.4 (Wikipedia, "Cohen's kappa").
    pairs = [("y", "y")] * 20 + [("y", "n")] * 5 + [("n", "y")] * 10 + [("n", "n")] * 15
    assert cohen_kappa(pairs) == pytest.approx(0.4)


def test_cohen_kappa_edges() -> None:
    assert cohen_kappa([("a", "a"), ("b", "b")]) == 1.0
    assert cohen_kappa([("a", "b"), ("b", "a")]) == pytest.approx(-1.0)
    assert cohen_kappa([("a", "a"), ("a", "a")]) is None  # chance agreement is already 1
    assert cohen_kappa([]) is None


def test_pairwise_kappa_uses_only_shared_units() -> None:
    ratings = {
        1: {"ann": "s", "bob": "s", "cat": "u"},
        2: {"ann": "u", "bob": "u"},
        3: {"ann": "s", "cat": "s"},
        4: {"bob": "u", "cat": "u"},
    }
    result = {(p.first, p.second): p for p in pairwise_kappa(ratings)}
    assert set(result) == {("ann", "bob"), ("ann", "cat"), ("bob", "cat")}
    assert result["ann", "bob"].n == 2 and result["ann", "bob"].kappa == 1.0
    assert result["ann", "cat"].n == 2
    assert result["bob", "cat"].n == 2


def test_majority_and_ties() -> None:
    assert majority(["s", "s", "u"]) == "s"
    assert majority(["s", "u"]) is None
    assert majority([]) is None
    assert majority(["x"]) == "x"


def test_confusion_matrix_ignores_unknown_values() -> None:
    pairs = [("s", "s"), ("s", "u"), ("u", "u"), ("u", "u"), ("z", "s")]
    assert confusion_matrix(pairs, ["s", "u"], ["s", "u", "n"]) == [[1, 1, 0], [0, 2, 0]]


LABELS = st.sampled_from(["supported", "unsupported", "no_check", "partial"])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(LABELS, min_size=0, max_size=5), min_size=0, max_size=25))
def test_alpha_is_at_most_one_and_one_only_for_unanimous_units(units: list[list[str]]) -> None:
    alpha = krippendorff_alpha_nominal(units)
    pairable = [u for u in units if len(u) >= 2]
    if alpha is None:
        return
    assert alpha <= 1.0 + 1e-12
    unanimous = all(len(set(u)) == 1 for u in pairable)
    assert (alpha == pytest.approx(1.0)) == unanimous


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(LABELS, LABELS), min_size=1, max_size=30))
def test_kappa_is_symmetric_and_bounded(pairs: list[tuple[str, str]]) -> None:
    kappa = cohen_kappa(pairs)
    swapped = cohen_kappa([(b, a) for a, b in pairs])
    if kappa is None:
        assert swapped is None
        return
    assert swapped == pytest.approx(kappa)
    assert -1.0 - 1e-12 <= kappa <= 1.0 + 1e-12
