"""Agreement on a project: people with each other, people with the model, and the
disagreements a lead settles.

Only submitted labels count. A claim's final label is the lead's adjudication where there
is one, else the majority of its labels (a tie has none). The model is the engine's
verdict and score stored at import.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from grounding_app.annotations import stats
from grounding_app.annotations.access import LabelingError
from grounding_app.annotations.labelset import NO_CHECK, SUPPORTED, grounding_label
from grounding_app.annotations.models import Assignment, ClaimLabel, ItemClaim, LabelingProject
from grounding_app.metrics import (
    ReliabilityBin,
    binary_report,
    expected_calibration_error,
    reliability_bins,
)
from grounding_app.rendering.charts import reliability_svgs

MODEL_VERDICTS = tuple(ItemClaim.Verdict)


@dataclass(frozen=True)
class KappaCell:
    kappa: float | None
    n: int
    band: str  # CSS class: heat-neg, heat-0 .. heat-5, or heat-none

    @property
    def text(self) -> str:
        return "—" if self.kappa is None else f"{self.kappa:.2f}"


@dataclass(frozen=True)
class Disagreement:
    claim: ItemClaim
    labels: tuple[tuple[str, str], ...]  # (annotator, label key), by annotator
    majority: str | None


@dataclass(frozen=True)
class AgreementReport:
    annotators: tuple[str, ...]
    labeled_claims: int  # claims with at least one submitted label
    alpha: float | None
    alpha_units: int  # claims with two labels or more
    kappa_rows: tuple[tuple[str, tuple[KappaCell, ...]], ...]
    compared: int  # claims where the model's score meets a final supported/other label
    balanced_accuracy: float | None
    roc_auc: float | None
    # (label key, ((count, heat class) per model verdict))
    confusion_rows: tuple[tuple[str, tuple[tuple[int, str], ...]], ...]
    bins: tuple[ReliabilityBin, ...]
    ece: float | None  # None until a claim can be compared
    chart_svg: str
    disagreements: tuple[Disagreement, ...]

    @property
    def unresolved(self) -> int:
        return sum(1 for d in self.disagreements if not d.claim.adjudicated_label)


def _heat_rows(
    keys: Sequence[str], matrix: Sequence[Sequence[int]]
) -> tuple[tuple[str, tuple[tuple[int, str], ...]], ...]:
    """Each count with a heat class from 1 to 5 relative to the largest count."""
    most = max((n for row in matrix for n in row), default=0)
    return tuple(
        (key, tuple((n, f"heat-{1 + int(4 * n / most)}" if n else "heat-none") for n in row))
        for key, row in zip(keys, matrix, strict=True)
    )


def kappa_band(kappa: float | None) -> str:
    """Landis and Koch's bands, as heat-map classes."""
    if kappa is None:
        return "heat-none"
    if kappa < 0:
        return "heat-neg"
    return f"heat-{min(int(kappa * 5), 4) + 1}" if kappa > 0 else "heat-0"


def alpha_verdict(alpha: float | None) -> str:
    """Krippendorff's own reading of alpha (2004): rely on >= .800, tentative >= .667."""
    if alpha is None:
        return "not enough overlapping labels yet"
    if alpha >= 0.8:
        return "reliable"
    if alpha >= 0.667:
        return "tentative conclusions only"
    return "not reliable"


def final_label(claim: ItemClaim, labels: Iterable[str]) -> str | None:
    """The adjudicated label where a lead set one, else the majority (None on a tie)."""
    return claim.adjudicated_label or stats.majority(labels)


def submitted_ratings(project: LabelingProject) -> dict[int, dict[str, str]]:
    """claim id -> {annotator: label} over submitted items."""
    ratings: dict[int, dict[str, str]] = defaultdict(dict)
    for claim_id, username, label in (
        ClaimLabel.objects.filter(
            assignment__item__project=project, assignment__status=Assignment.Status.SUBMITTED
        )
        .exclude(label="")
        .values_list("claim_id", "assignment__annotator__username", "label")
    ):
        ratings[claim_id][username] = label
    return ratings


def _disagreement(claim: ItemClaim, by: Mapping[str, str]) -> Disagreement:
    return Disagreement(
        claim=claim, labels=tuple(sorted(by.items())), majority=stats.majority(by.values())
    )


def disagreement(claim: ItemClaim) -> Disagreement:
    """One claim's row of the disagreements list, fresh from the database."""
    by = dict(
        ClaimLabel.objects.filter(claim=claim, assignment__status=Assignment.Status.SUBMITTED)
        .exclude(label="")
        .values_list("assignment__annotator__username", "label")
    )
    return _disagreement(claim, by)


def agreement(project: LabelingProject) -> AgreementReport:
    ratings = submitted_ratings(project)
    has_labels = ClaimLabel.objects.filter(
        claim=OuterRef("pk"), assignment__status=Assignment.Status.SUBMITTED
    ).exclude(label="")
    claims = list(
        ItemClaim.objects.filter(item__project=project)
        .filter(Q(Exists(has_labels)) | ~Q(adjudicated_label=""))
        .select_related("item", "adjudicated_by")
        .order_by("item__position", "index")
    )
    annotators = tuple(sorted({a for by in ratings.values() for a in by}))

    alpha_units = [list(ratings[c.pk].values()) for c in claims if len(ratings[c.pk]) >= 2]
    pairs = {(p.first, p.second): p for p in stats.pairwise_kappa(ratings)}
    kappa_rows = []
    for a in annotators:
        cells = []
        for b in annotators:
            pair = pairs.get((a, b)) or pairs.get((b, a))
            if a == b or pair is None:
                cells.append(KappaCell(None, 0, "heat-self" if a == b else "heat-none"))
            else:
                cells.append(KappaCell(pair.kappa, pair.n, kappa_band(pair.kappa)))
        kappa_rows.append((a, tuple(cells)))

    finals = {c.pk: final_label(c, ratings[c.pk].values()) for c in claims}
    keys = [label.key for label in project.labels]
    confusion = stats.confusion_matrix(
        ((finals[c.pk], c.model_verdict) for c in claims if finals[c.pk]), keys, MODEL_VERDICTS
    )
    binary = [
        (int(grounding_label(final) or 0), c.model_verdict == SUPPORTED, c.model_score)
        for c in claims
        if (final := finals[c.pk]) and final != NO_CHECK and c.model_score is not None
    ]
    outcomes = [y for y, _, _ in binary]
    scores = [s for _, _, s in binary]
    both_classes = 0 < sum(outcomes) < len(outcomes)
    report = binary_report(outcomes, [p for _, p, _ in binary], scores) if both_classes else None
    bins = reliability_bins(outcomes, scores)

    disagreements = [
        _disagreement(c, ratings[c.pk])
        for c in claims
        if len(ratings[c.pk]) >= 2 and len(set(ratings[c.pk].values())) > 1
    ]
    disagreements.sort(key=lambda d: bool(d.claim.adjudicated_label))

    return AgreementReport(
        annotators=annotators,
        labeled_claims=sum(1 for c in claims if ratings[c.pk]),
        alpha=stats.krippendorff_alpha_nominal(alpha_units),
        alpha_units=len(alpha_units),
        kappa_rows=tuple(kappa_rows),
        compared=len(binary),
        balanced_accuracy=report.balanced_accuracy if report else None,
        roc_auc=report.roc_auc if report else None,
        confusion_rows=_heat_rows(keys, confusion),
        bins=tuple(bins),
        ece=expected_calibration_error(outcomes, scores) if binary else None,
        chart_svg=reliability_svgs({"model": bins}, "Model score against human label"),
        disagreements=tuple(disagreements),
    )


def adjudicate(claim: ItemClaim, label: str, user: Any) -> None:
    """Record a lead's final label ("" clears it, leaving the majority in charge)."""
    project = claim.item.project
    if label and label not in project.label_keys:
        raise LabelingError(f"“{label}” is not a label of this project.")
    claim.adjudicated_label = label
    claim.adjudicated_by = user if label else None
    claim.adjudicated_at = timezone.now() if label else None
    claim.save(update_fields=["adjudicated_label", "adjudicated_by", "adjudicated_at"])
