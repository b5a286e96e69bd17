"""The loop: labels the team gave to claims the sampler drew become a calibration
candidate for each scope those claims came from.

A sampled item names its batch line (`meta["batch_line"]`) and its claims the line's
segments, so each labelled claim is placed in the line's scopes (its trace source, its
labels) with the score the engine gave it, before any calibration then applied mapped it
(`calibration.services.engine_score`). A scope gets a new candidate when its count of
labels has changed since its last one from the team's labels; the Verifier page offers
to apply it where its guard passes. The daily sampling run calls `propose_all`.
"""

from __future__ import annotations

from collections import defaultdict

from grounding_app.annotations.labelset import NO_CHECK, SUPPORTED
from grounding_app.annotations.models import ItemClaim
from grounding_app.batch.models import BatchLine
from grounding_app.calibration.models import Calibration, Scope
from grounding_app.calibration.services import (
    Labelled,
    engine_score,
    line_scopes,
    propose_calibration,
)
from grounding_app.verifiers.accuracy import final_label, submitted_labels

FROM_TEAM = "the team's labels"

Key = tuple[Scope, str, str]  # scope kind, scope, verifier


def labelled_by_scope() -> dict[Key, list[Labelled]]:
    """Each scope's labelled claims drawn from its batch lines, per verifier."""
    claims = list(
        ItemClaim.objects.filter(item__meta__has_key="batch_line", model_score__isnull=False)
        .select_related("item")
        .prefetch_related(submitted_labels())
    )
    line_ids = {c.item.meta.get("batch_line") for c in claims}
    lines = BatchLine.objects.in_bulk([i for i in line_ids if isinstance(i, int)])
    found: dict[Key, list[Labelled]] = defaultdict(list)
    for claim in claims:
        label = final_label(claim)
        line = lines.get(claim.item.meta.get("batch_line"))
        if label is None or label[0] == NO_CHECK or line is None or not line.verifier:
            continue
        segments = ((line.result or {}).get("candidates") or [{}])[0].get("segments") or []
        if not 0 <= claim.index < len(segments):
            continue
        segment = segments[claim.index]
        if segment.get("score") is None or not segment.get("checked_by"):
            continue
        judge = str(segment["checked_by"])
        score = engine_score(float(segment["score"]), segment.get("calibration"), judge)
        for kind, scope in line_scopes(line.labels or {}):
            found[(kind, scope, line.verifier)].append((score, judge, int(label[0] == SUPPORTED)))
    return found


def propose_all() -> list[Calibration]:
    """A candidate for each scope whose count of team labels changed since its last."""
    made = []
    for (kind, scope, verifier), labelled in sorted(labelled_by_scope().items()):
        source = f"{FROM_TEAM} ({len(labelled)} claims)"
        last = (
            Calibration.objects.filter(
                kind=kind, scope=scope, verifier=verifier, labels_from__startswith=FROM_TEAM
            )
            .order_by("-created_at", "-id")
            .first()
        )
        if last is None or last.labels_from != source:
            made.append(propose_calibration(kind, scope, verifier, labelled, source))
    return made
