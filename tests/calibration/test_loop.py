"""The loop: claims the sampler drew from a trace source's lines, labelled in a labeling
project, become a calibration candidate for that source, fitted on the scores the engine
gave (a calibration applied at the time is undone first); a second pass with no new
label proposes nothing new, and the daily sampling run makes the candidates."""

from __future__ import annotations

from datetime import date

import pytest
from django.utils import timezone

from grounding_app.annotations.models import Item, ItemClaim, LabelingProject
from grounding_app.batch.models import BatchJob, BatchLine
from grounding_app.calibration.models import Calibration, Scope
from grounding_app.calibration.services import engine_score, propose_calibration
from grounding_app.engine import Platt
from grounding_app.monitoring import sampling, scope_labels
from tests.calibration.test_fit import scope

pytestmark = pytest.mark.django_db

VERIFIER = "v@sha256:000000000001"


def sampled(scores: list[float], labels: list[int], calibration: str | None = None) -> None:
    """Batch lines of the trace source 'chatbot', one claim each, sampled and labelled."""
    job = BatchJob.objects.create(name="chatbot 2026-12-07")
    project = LabelingProject.objects.create(name="sampled")
    for n, (score, label) in enumerate(zip(scores, labels, strict=True), start=1):
        segment = {"start": 0, "end": 5, "text": "claim", "score": score, "checked_by": "verifier"}
        if calibration:
            segment["calibration"] = calibration
        line = BatchLine.objects.create(
            job=job,
            number=n,
            state=BatchLine.State.DONE,
            labels={"format": "grounding", "service": "chatbot"},
            verifier=VERIFIER,
            result={"candidates": [{"segments": [segment]}]},
        )
        item = Item.objects.create(
            project=project, position=n, answer="claim", meta={"batch_line": line.pk}
        )
        ItemClaim.objects.create(
            item=item,
            index=0,
            start=0,
            end=5,
            text="claim",
            check_required=True,
            model_verdict="supported" if score >= 0.6 else "unsupported",
            model_score=score,
            adjudicated_label="supported" if label else "unsupported",
            adjudicated_at=timezone.now(),
        )


def test_sampled_labels_make_a_candidate_for_their_source_once():
    scores, labels = scope(200, -1.5)
    sampled(scores, labels)
    made = scope_labels.propose_all()
    assert [(c.kind, c.scope) for c in made] == [(Scope.SOURCE, "chatbot")]
    fit = made[0].fits["verifier"]
    assert fit["labels"] == 200 and not fit["refused"]
    assert made[0].labels_from == "the team's labels (200 claims)"
    assert scope_labels.propose_all() == []  # no new label, no new candidate


def test_a_score_mapped_when_sampled_is_fitted_as_the_engine_gave_it():
    old = propose_calibration(Scope.SOURCE, "chatbot", VERIFIER, [], "file")
    old.fits = {"verifier": {"slope": 2.0, "offset": 1.0}}
    old.save()
    mapped = Platt(2.0, 1.0)(0.3)
    assert engine_score(mapped, old.name, "verifier") == pytest.approx(0.3)
    assert engine_score(0.3, None, "verifier") == 0.3
    assert engine_score(0.3, old.name, "word_matching") == 0.3
    scores, labels = scope(200, -1.5)
    sampled([Platt(2.0, 1.0)(s) for s in scores], labels, old.name)
    (made,) = scope_labels.propose_all()
    direct = propose_calibration(
        Scope.SOURCE,
        "x",
        VERIFIER,
        [(s, "verifier", y) for s, y in zip(scores, labels, strict=True)],
        "file",
    )
    assert made.fits["verifier"]["ba_before"] == pytest.approx(direct.fits["verifier"]["ba_before"])


def test_the_daily_sampling_run_proposes(monkeypatch):
    scores, labels = scope(120, -1.5)
    sampled(scores, labels)
    sampling.run_daily(date(2026, 12, 7))
    assert Calibration.objects.filter(scope="chatbot", labels_from__startswith="the team").exists()
