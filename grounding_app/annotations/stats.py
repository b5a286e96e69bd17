"""Agreement statistics for nominal labels: pure Python, no Django, table-tested.

Labels are any hashable values; a missing label is simply absent from a unit. Every
function returns None where the statistic is undefined (too few values, or a single
category everywhere, where chance agreement is already perfect) instead of a number
that would look meaningful.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import TypeVar

Label = TypeVar("Label", bound=Hashable)
Rater = TypeVar("Rater", bound=Hashable)
Unit = TypeVar("Unit", bound=Hashable)


def krippendorff_alpha_nominal(units: Iterable[Sequence[Hashable]]) -> float | None:
    """Krippendorff's alpha for nominal data, with missing values (Krippendorff 2011).

    `units` holds, per unit, the values its raters gave (missing ones left out). Units
    with fewer than two values cannot be paired and do not count. Built from the
    coincidence matrix: alpha = 1 - (n - 1) * D_o / D_e with D_o the observed and
    D_e the expected pairs of differing values.
    """
    coincidences: defaultdict[tuple[Hashable, Hashable], float] = defaultdict(float)
    for values in units:
        m = len(values)
        if m < 2:
            continue
        counts = Counter(values)
        for c, n_c in counts.items():
            for k, n_k in counts.items():
                pairs = n_c * (n_k - 1) if c == k else n_c * n_k
                if pairs:
                    coincidences[c, k] += pairs / (m - 1)
    marginals: defaultdict[Hashable, float] = defaultdict(float)
    for (c, _), weight in coincidences.items():
        marginals[c] += weight
    n = sum(marginals.values())
    if n < 2:
        return None
    observed = sum(w for (c, k), w in coincidences.items() if c != k)
    expected = sum(marginals[c] * marginals[k] for c in marginals for k in marginals if c != k)
    if expected == 0:
        return None
    return 1.0 - (n - 1) * observed / expected


def cohen_kappa(pairs: Sequence[tuple[Hashable, Hashable]]) -> float | None:
    """Cohen's kappa of two raters over the units both labeled: (p_o - p_e) / (1 - p_e)."""
    n = len(pairs)
    if n == 0:
        return None
    agree = sum(1 for a, b in pairs if a == b)
    first = Counter(a for a, _ in pairs)
    second = Counter(b for _, b in pairs)
    chance = sum(first[c] * second[c] for c in first) / (n * n)
    if chance == 1:
        return None
    return (agree / n - chance) / (1 - chance)


@dataclass(frozen=True)
class PairKappa:
    first: Hashable
    second: Hashable
    n: int  # units both raters labeled
    kappa: float | None


def pairwise_kappa(ratings: Mapping[Unit, Mapping[Rater, Label]]) -> list[PairKappa]:
    """Cohen's kappa for every pair of raters, over the units both of them labeled."""
    raters = sorted({r for by_rater in ratings.values() for r in by_rater}, key=str)
    result = []
    for first, second in combinations(raters, 2):
        pairs = [
            (by_rater[first], by_rater[second])
            for by_rater in ratings.values()
            if first in by_rater and second in by_rater
        ]
        result.append(PairKappa(first, second, len(pairs), cohen_kappa(pairs)))
    return result


def majority(values: Iterable[Label]) -> Label | None:
    """The most frequent value; None when there is none or the top is tied."""
    ranked = Counter(values).most_common(2)
    if not ranked or (len(ranked) == 2 and ranked[0][1] == ranked[1][1]):
        return None
    return ranked[0][0]


def confusion_matrix(
    pairs: Iterable[tuple[Hashable, Hashable]],
    rows: Sequence[Hashable],
    columns: Sequence[Hashable],
) -> list[list[int]]:
    """Counts of (row value, column value); pairs outside the given values are left out."""
    row_at = {value: i for i, value in enumerate(rows)}
    column_at = {value: j for j, value in enumerate(columns)}
    matrix = [[0] * len(columns) for _ in rows]
    for row, column in pairs:
        if row in row_at and column in column_at:
            matrix[row_at[row]][column_at[column]] += 1
    return matrix
