"""Fitting a scope's scale from its labels, and the guard that decides whether it helps.

Plain Python and numpy, no Django: the `calibrate` command, the Verifier page and the
lab's figures (`grounding_lab/scope_calibration.py`) all fit through `propose`.

The map is Platt's (`engine/scales.py`), fitted class-balanced so that the default
citation threshold cuts where each class's errors weigh the same, as the shipped scale
was fitted. A prior pulls it toward today's scale: anchors, one per labelled score,
whose target is what today's scale says (`PRIOR_LABELS` of them in all), so a few
labels move the map little and many move it where they point.

The guard measures the map where it was not fitted: each label's score comes from a map
fitted on the other folds (stratified, `FOLDS`), and the balanced accuracy at the
threshold, before and after, is compared on the same labels with a paired bootstrap. A
candidate is usable only when the whole interval of the gain lies above zero.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from grounding_app.engine import DEFAULT_CITATION_THRESHOLD, Platt
from grounding_app.metrics import balanced_accuracy_at, paired_bootstrap, roc_auc

FOLDS = 5
PRIOR_LABELS = 30
MIN_LABELS = 30
MIN_PER_CLASS = 8
_CLIP = 1e-6


def _logits(scores: Sequence[float]) -> np.ndarray:
    p = np.clip(np.asarray(scores, dtype=np.float64), _CLIP, 1 - _CLIP)
    return np.log(p / (1 - p))


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-np.clip(z, -40, 40)))


def fit_platt(
    scores: Sequence[float],
    labels: Sequence[int],
    prior: float = PRIOR_LABELS,
    threshold: float = DEFAULT_CITATION_THRESHOLD,
) -> Platt | None:
    """The map `sigmoid(slope * logit(s) + offset)` that, read at `threshold`, best
    separates the labels (each class weighing half), pulled toward slope 1, offset 0 by
    `prior` labels' worth of today's scale. None when the labels rank against the scores
    (a slope that is not positive: no monotone map helps)."""
    z = _logits(scores)
    y = np.asarray(labels, dtype=np.float64)
    n = len(y)
    positives = float(y.sum())
    weights = np.where(y == 1, n / 2 / max(positives, 1), n / 2 / max(n - positives, 1))
    shift = math.log(threshold / (1 - threshold))
    # Anchors: the same scores, their targets today's scale read at the threshold.
    anchors = _sigmoid(z - shift)
    z_all = np.concatenate([z, z])
    y_all = np.concatenate([y, anchors])
    w_all = np.concatenate([weights, np.full(n, prior / max(n, 1))])
    x = np.stack([z_all, np.ones_like(z_all)], axis=1)

    def loss(theta: np.ndarray) -> float:
        v = x @ theta - shift  # the weighted cross-entropy, written stably in logits
        return float((w_all * (np.logaddexp(0, v) - y_all * v)).sum())

    theta = np.array([1.0, 0.0])
    current = loss(theta)
    for _ in range(100):  # Newton's method, each step halved until the loss falls
        q = _sigmoid(x @ theta - shift)
        gradient = x.T @ (w_all * (q - y_all))
        hessian = (x * (w_all * q * (1 - q))[:, None]).T @ x + 1e-9 * np.eye(2)
        step = np.linalg.solve(hessian, gradient)
        rate = 1.0
        while rate > 1e-6 and loss(theta - rate * step) > current:
            rate /= 2
        theta = theta - rate * step
        previous, current = current, loss(theta)
        if previous - current < 1e-12:
            break
    slope, offset = float(theta[0]), float(theta[1])
    if not (slope > 1e-3 and math.isfinite(offset)):
        return None
    return Platt(slope, offset)


def _folds(labels: Sequence[int], folds: int) -> list[int]:
    """A fold per label, each class dealt round the folds in turn: every fold holds
    both classes in the whole's proportion, the same for the same labels."""
    fold = [0] * len(labels)
    dealt = [0, 0]
    for i, y in enumerate(labels):
        fold[i] = dealt[y] % folds
        dealt[y] += 1
    return fold


def held_back_scores(
    scores: Sequence[float], labels: Sequence[int], folds: int = FOLDS, prior: float = PRIOR_LABELS
) -> list[float] | None:
    """Each score as a map fitted on the other folds reads it; None when a fold's map
    cannot be fitted."""
    fold = _folds(labels, folds)
    out = [0.0] * len(scores)
    for k in range(folds):
        train = [i for i in range(len(scores)) if fold[i] != k]
        test = [i for i in range(len(scores)) if fold[i] == k]
        found = fit_platt([scores[i] for i in train], [labels[i] for i in train], prior)
        if found is None:
            return None
        for i in test:
            out[i] = found(scores[i])
    return out


@dataclass(frozen=True)
class Proposal:
    """A scope's candidate map for one judge, and what its labels say of it."""

    labels: int
    positives: int
    platt: Platt | None  # fitted on every label; None when none could be
    ba_before: float | None
    ba_after: float | None  # held back (`held_back_scores`)
    auc_before: float | None
    auc_after: float | None
    gain_low: float | None  # the 95 % interval of the gain in balanced accuracy
    gain_high: float | None
    refused: str  # why it may not be applied; "" when the guard passes

    @property
    def usable(self) -> bool:
        return not self.refused and self.platt is not None

    def labels_to_settle(self) -> int | None:
        """About how many more labels would make the interval of an observed gain clear
        zero (its width shrinks as one over the root of the count); None where no gain is
        seen or it already does."""
        if self.usable or self.ba_before is None or self.ba_after is None:
            return None
        gain = self.ba_after - self.ba_before
        if gain <= 0 or self.gain_low is None or self.gain_high is None:
            return None
        half = (self.gain_high - self.gain_low) / 2
        return max(math.ceil(self.labels * (half / gain) ** 2) - self.labels, 1)


def propose(
    scores: Sequence[float],
    labels: Sequence[int],
    threshold: float = DEFAULT_CITATION_THRESHOLD,
    prior: float = PRIOR_LABELS,
    rounds: int = 1000,
) -> Proposal:
    """The map fitted on all `labels` (1 supported, 0 not) of one scope and one judge,
    with the held-back comparison that guards it."""
    n, positives = len(labels), sum(labels)
    if positives in (0, n):
        kind = "supported" if positives else "unsupported"
        reason = f"all {n} labels are {kind}: one class says nothing about where to cut"
        return Proposal(n, positives, None, None, None, None, None, None, None, reason)
    few = min(positives, n - positives)
    if n < MIN_LABELS or few < MIN_PER_CLASS:
        reason = (
            f"{n} labels ({positives} supported, {n - positives} not): at least {MIN_LABELS}, "
            f"{MIN_PER_CLASS} of each class, are needed"
        )
        before = balanced_accuracy_at(labels, scores, threshold)
        auc = roc_auc(labels, scores)
        return Proposal(n, positives, None, before, None, auc, None, None, None, reason)
    platt = fit_platt(scores, labels, prior, threshold)
    held = held_back_scores(scores, labels, prior=prior)
    before = balanced_accuracy_at(labels, scores, threshold)
    auc_before = roc_auc(labels, scores)
    if platt is None or held is None:
        reason = "the scores rank these labels the wrong way round: no monotone map helps"
        return Proposal(n, positives, None, before, None, auc_before, None, None, None, reason)
    after = balanced_accuracy_at(labels, held, threshold)
    gain = paired_bootstrap([labels], [scores], [held], threshold, rounds=rounds)
    refused = ""
    if gain.low <= 0 or after <= before:
        refused = (
            f"held back, balanced accuracy {before:.3f} → {after:.3f}; the 95 % interval of "
            f"the gain ({gain.low:+.3f} to {gain.high:+.3f}) does not lie above zero"
        )
    return Proposal(
        n,
        positives,
        platt,
        before,
        after,
        auc_before,
        roc_auc(labels, held),
        gain.low,
        gain.high,
        refused,
    )
