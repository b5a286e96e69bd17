"""Binary classification figures for grounding verdicts (label 1 = supported).

Pure and small: the annotation agreement page and its charts use them on a request,
evaluation and training (`grounding_lab/`) offline, so they belong to neither side.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class BinaryReport:
    n: int
    balanced_accuracy: float
    unsupported_precision: float
    unsupported_recall: float
    roc_auc: float | None  # None when only one class is present


def _safe_div(a: float, b: float) -> float:
    return a / b if b else 0.0


def roc_auc(labels: Sequence[int], scores: Sequence[float]) -> float | None:
    """Mann-Whitney U with average ranks for ties."""
    pairs = sorted(zip(scores, labels, strict=True))
    positives = sum(labels)
    negatives = len(labels) - positives
    if positives == 0 or negatives == 0:
        return None
    rank_sum = 0.0
    i = 0
    while i < len(pairs):
        j = i
        while j + 1 < len(pairs) and pairs[j + 1][0] == pairs[i][0]:
            j += 1
        average_rank = (i + j) / 2 + 1
        rank_sum += average_rank * sum(label for _, label in pairs[i : j + 1])
        i = j + 1
    return (rank_sum - positives * (positives + 1) / 2) / (positives * negatives)


def binary_report(
    labels: Sequence[int], predictions: Sequence[bool], scores: Sequence[float]
) -> BinaryReport:
    tp = sum(1 for y, p in zip(labels, predictions, strict=True) if y == 1 and p)
    tn = sum(1 for y, p in zip(labels, predictions, strict=True) if y == 0 and not p)
    fp = sum(1 for y, p in zip(labels, predictions, strict=True) if y == 0 and p)
    fn = sum(1 for y, p in zip(labels, predictions, strict=True) if y == 1 and not p)
    tpr = _safe_div(tp, tp + fn)
    tnr = _safe_div(tn, tn + fp)
    return BinaryReport(
        n=len(labels),
        balanced_accuracy=(tpr + tnr) / 2,
        unsupported_precision=_safe_div(tn, tn + fn),
        unsupported_recall=tnr,
        roc_auc=roc_auc(labels, scores),
    )


def best_threshold(labels: Sequence[int], scores: Sequence[float]) -> tuple[float, float]:
    """The threshold (predict supported when score >= t) with the best balanced accuracy."""
    positives = sum(labels)
    negatives = len(labels) - positives
    if positives == 0 or negatives == 0:
        return 0.5, 0.5
    ordered = sorted(zip(scores, labels, strict=True))
    # Threshold at ordered[i][0]: everything before i is predicted unsupported.
    best = (ordered[0][0], 0.5)
    below_pos = below_neg = 0
    i = 0
    while i < len(ordered):
        score = ordered[i][0]
        accuracy = ((positives - below_pos) / positives + below_neg / negatives) / 2
        if accuracy > best[1]:
            best = (score, accuracy)
        while i < len(ordered) and ordered[i][0] == score:
            below_pos += ordered[i][1]
            below_neg += 1 - ordered[i][1]
            i += 1
    return best


def balanced_accuracy_at(labels: Sequence[int], scores: Sequence[float], t: float) -> float:
    hits = [0, 0]
    totals = [0, 0]
    for y, p in zip(labels, scores, strict=True):
        totals[y] += 1
        hits[y] += (p >= t) == bool(y)
    return (_safe_div(hits[0], totals[0]) + _safe_div(hits[1], totals[1])) / 2


def macro_best_threshold(
    groups: Sequence[tuple[Sequence[int], Sequence[float]]], step: float = 0.005
) -> tuple[float, float]:
    """The threshold with the best balanced accuracy averaged over groups (sources), on a
    grid: what a default `citationThreshold` should be when each source counts the same
    whatever its size. A plateau of equal best gives its middle; groups holding one
    class only are left out."""
    usable = [(ys, ps) for ys, ps in groups if 0 < sum(ys) < len(ys)]
    if not usable:
        return 0.5, 0.5
    grid = [round(k * step, 9) for k in range(1, round(1 / step))]
    accuracy = [
        sum(balanced_accuracy_at(ys, ps, t) for ys, ps in usable) / len(usable) for t in grid
    ]
    top = max(accuracy)
    first = accuracy.index(top)
    last = first
    while last + 1 < len(grid) and accuracy[last + 1] >= top - 1e-12:
        last += 1
    return (grid[first] + grid[last]) / 2, top


def macro_balanced_accuracy(
    groups: Sequence[tuple[Sequence[int], Sequence[float]]], threshold: float
) -> float:
    """Balanced accuracy at `threshold`, averaged over groups holding both classes."""
    usable = [(ys, ps) for ys, ps in groups if 0 < sum(ys) < len(ys)]
    if not usable:
        return 0.5
    return sum(balanced_accuracy_at(ys, ps, threshold) for ys, ps in usable) / len(usable)


@dataclass(frozen=True)
class PairedDifference:
    difference: float  # new minus old, on the data as it is
    low: float  # 2.5th percentile over resamples
    high: float  # 97.5th percentile
    share_better: float  # resamples in which the new judge is ahead


def paired_bootstrap(
    labels: Sequence[Sequence[int]],
    old: Sequence[Sequence[float]],
    new: Sequence[Sequence[float]],
    threshold: float,
    rounds: int = 1000,
    seed: int = 0,
) -> PairedDifference:
    """How far two judges' macro balanced accuracy on the same examples differs, and how
    surely: examples are resampled within each group (a source with 7 negatives moves
    the macro figure by several points on its own), and both judges are scored on the
    same resample."""
    groups = list(zip(labels, old, new, strict=True))

    def difference(rows: Sequence[tuple[Sequence[int], Sequence[float], Sequence[float]]]):
        return macro_balanced_accuracy(
            [(ys, b) for ys, _, b in rows], threshold
        ) - macro_balanced_accuracy([(ys, a) for ys, a, _ in rows], threshold)

    rng = random.Random(seed)
    samples = []
    for _ in range(rounds):
        rows = []
        for ys, a, b in groups:
            picks = [rng.randrange(len(ys)) for _ in ys]
            rows.append(([ys[i] for i in picks], [a[i] for i in picks], [b[i] for i in picks]))
        samples.append(difference(rows))
    samples.sort()
    return PairedDifference(
        difference=difference(groups),
        low=samples[int(0.025 * (rounds - 1))],
        high=samples[int(0.975 * (rounds - 1))],
        share_better=sum(d > 0 for d in samples) / rounds,
    )


@dataclass(frozen=True)
class ReliabilityBin:
    low: float
    high: float
    count: int
    mean_score: float  # 0 when empty
    supported_rate: float  # 0 when empty


def reliability_bins(
    labels: Sequence[int], scores: Sequence[float], n_bins: int = 10
) -> list[ReliabilityBin]:
    """Equal-width bins of predicted probability with the observed supported rate."""
    sums = [[0, 0.0, 0] for _ in range(n_bins)]
    for label, score in zip(labels, scores, strict=True):
        index = min(int(score * n_bins), n_bins - 1)
        sums[index][0] += 1
        sums[index][1] += score
        sums[index][2] += label
    return [
        ReliabilityBin(
            low=i / n_bins,
            high=(i + 1) / n_bins,
            count=int(count),
            mean_score=total / count if count else 0.0,
            supported_rate=positives / count if count else 0.0,
        )
        for i, (count, total, positives) in enumerate(sums)
    ]


def expected_calibration_error(
    labels: Sequence[int], scores: Sequence[float], n_bins: int = 10
) -> float:
    """Count-weighted mean gap between confidence and accuracy over the bins."""
    bins = reliability_bins(labels, scores, n_bins)
    n = sum(b.count for b in bins)
    return sum(b.count * abs(b.mean_score - b.supported_rate) for b in bins) / n if n else 0.0
