"""How good the active verifier is on the team's own labels, week by week.

The labels are the claims of labeling-project items that carry a verifier's scores
(`meta["verifier"]`: the sampler writes it, `monitoring/sampling.py`): a claim's label is
its adjudicated label, else the majority of its submitted labels (a tie counts none);
`no_check` is left out and every label but `supported` counts as not supported, as the
label set says. A week is the ISO week (Monday, UTC) the claim's label was given. The
95 % intervals are percentile bootstraps (numpy's generator, a fixed seed), so a page
shows the same figures on every load.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta

import numpy as np
from django.db.models import Prefetch

from grounding_app.annotations.labelset import NO_CHECK, SUPPORTED
from grounding_app.annotations.models import Assignment, ClaimLabel, ItemClaim
from grounding_app.metrics import binary_report, roc_auc

ROUNDS = 1000
SEED = 0


@dataclass(frozen=True)
class Labelled:
    label: int  # 1 = supported
    predicted: bool  # the verifier said supported
    score: float
    week: date  # Monday


@dataclass(frozen=True)
class Interval:
    low: float
    high: float


@dataclass(frozen=True)
class Figures:
    week: date | None  # None: every week together
    labels: int
    balanced_accuracy: float | None  # None: not measurable (see `only`)
    balanced_accuracy_ci: Interval | None
    roc_auc: float | None
    roc_auc_ci: Interval | None
    only: str = ""  # the one class every label is in, when they are all in one

    @property
    def not_measurable(self) -> str:
        """Why neither figure has a value, in words; empty when they have one."""
        return f"not measurable: all labels are {self.only}" if self.only else ""


def final_label(claim: ItemClaim) -> tuple[str, datetime] | None:
    """A claim's label and when it was given: adjudicated, else its annotators' majority."""
    if claim.adjudicated_label and claim.adjudicated_at:
        return claim.adjudicated_label, claim.adjudicated_at
    given = [(x.label, x.assignment.submitted_at) for x in claim.labels.all() if x.label]
    counts = Counter(label for label, _ in given).most_common(2)
    if not counts or (len(counts) == 2 and counts[0][1] == counts[1][1]):
        return None
    when = max(at for label, at in given if label == counts[0][0] and at is not None)
    return counts[0][0], when


def submitted_labels() -> Prefetch:
    """The submitted labels of claims, as `final_label` reads them."""
    submitted = ClaimLabel.objects.filter(
        assignment__status=Assignment.Status.SUBMITTED, assignment__submitted_at__isnull=False
    ).select_related("assignment")
    return Prefetch("labels", queryset=submitted)


def team_labels(verifier_id: str) -> list[Labelled]:
    """The labelled claims scored by `verifier_id`."""
    claims = ItemClaim.objects.filter(
        item__meta__verifier=verifier_id, model_score__isnull=False
    ).prefetch_related(submitted_labels())
    found = []
    for claim in claims:
        labelled = final_label(claim)
        if labelled is None or labelled[0] == NO_CHECK or claim.model_score is None:
            continue
        day = labelled[1].date()
        found.append(
            Labelled(
                label=int(labelled[0] == SUPPORTED),
                predicted=claim.model_verdict == ItemClaim.Verdict.SUPPORTED,
                score=claim.model_score,
                week=day - timedelta(days=day.weekday()),
            )
        )
    return found


def _ba(rows: Sequence[Labelled]) -> float:
    labels, said = [r.label for r in rows], [r.predicted for r in rows]
    return binary_report(labels, said, [r.score for r in rows]).balanced_accuracy


def _interval(samples: np.ndarray) -> Interval | None:
    """The 2.5th and 97.5th percentiles (nearest lower rank) of the finite samples."""
    ordered = np.sort(samples[np.isfinite(samples)])
    if not ordered.size:
        return None
    n = ordered.size
    return Interval(float(ordered[int(0.025 * (n - 1))]), float(ordered[int(0.975 * (n - 1))]))


def _bootstrap(rows: Sequence[Labelled]) -> tuple[np.ndarray, np.ndarray]:
    """Balanced accuracy and ROC AUC of ROUNDS resamples, drawn by numpy's generator
    seeded SEED; NaN where a resample lacks a class. Each resample is a row of counts
    (how often each claim was drawn), so the figures are weighted sums over the claims
    in score order, ties sharing their pairs by half, as `metrics.roc_auc` ranks them:
    a page with a thousand labels answers in milliseconds, not seconds."""
    n = len(rows)
    picks = np.random.default_rng(SEED).integers(0, n, size=(ROUNDS, n))
    counts = np.bincount((picks + n * np.arange(ROUNDS)[:, None]).ravel(), minlength=ROUNDS * n)
    weights = counts.reshape(ROUNDS, n).astype(float)
    label = np.array([r.label for r in rows], dtype=bool)
    said = np.array([r.predicted for r in rows], dtype=bool)
    positives, negatives = weights[:, label].sum(1), weights[:, ~label].sum(1)
    with np.errstate(invalid="ignore", divide="ignore"):
        tpr = weights[:, label & said].sum(1) / positives
        tnr = weights[:, ~label & ~said].sum(1) / negatives
        ba = np.where(positives * negatives > 0, (tpr + tnr) / 2, np.nan)
        scores = np.array([r.score for r in rows])
        order = np.argsort(scores, kind="stable")
        starts = np.flatnonzero(np.r_[True, np.diff(scores[order]) != 0])
        pos = np.add.reduceat(weights[:, order] * label[order], starts, axis=1)
        neg = np.add.reduceat(weights[:, order] * ~label[order], starts, axis=1)
        below = np.cumsum(neg, axis=1) - neg
        auc = (pos * (below + neg / 2)).sum(1) / (positives * negatives)
    return ba, auc


def figures(rows: Sequence[Labelled], week: date | None = None) -> Figures:
    """Balanced accuracy and ROC AUC of `rows`, each with a bootstrap 95 % interval
    (resamples holding one class only are left out of the intervals)."""
    if not rows:
        return Figures(week, 0, None, None, None, None)
    classes = {r.label for r in rows}
    if len(classes) == 1:  # balanced accuracy averages both classes' recall: one is 0/0
        only = SUPPORTED if classes == {1} else "unsupported or partial"
        return Figures(week, len(rows), None, None, None, None, only=only)
    ba, auc = _bootstrap(rows)
    return Figures(
        week=week,
        labels=len(rows),
        balanced_accuracy=_ba(rows),
        balanced_accuracy_ci=_interval(ba),
        roc_auc=roc_auc([r.label for r in rows], [r.score for r in rows]),
        roc_auc_ci=_interval(auc),
    )


def by_week(rows: Sequence[Labelled]) -> list[Figures]:
    """Each week's figures, newest first, then every week together."""
    weeks: dict[date, list[Labelled]] = defaultdict(list)
    for row in rows:
        weeks[row.week].append(row)
    return [figures(weeks[w], w) for w in sorted(weeks, reverse=True)] + [figures(rows)]
