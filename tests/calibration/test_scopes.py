"""A scope's calibration, end to end with a fast engine posing as a verifier: fitted from a
labels file by `manage.py calibrate`, applied only when its guard passes, followed by the
API for its own config alone and for the verifier it was fitted for, and undone."""

from __future__ import annotations

import io
import json
import random
from collections.abc import Iterator

import pytest
from django.core.management import CommandError, call_command

from grounding_app.active_verifier.checker import Checker, serving
from grounding_app.api.models import ApiKey
from grounding_app.calibration.models import Calibration, Scope
from grounding_app.calibration.services import (
    CalibrationError,
    apply,
    propose_calibration,
    scale_for,
    undo,
)
from grounding_app.engine import CheckRequest, Fact, FeatureJudge, GroundingEngine, HashingEncoder
from tests.conftest import FAKE_JUDGE_BIAS, FAKE_JUDGE_WEIGHTS

pytestmark = pytest.mark.django_db

FACT = (
    "The Eiffel Tower was completed in 1889 in Paris for the World Fair and was designed "
    "by the engineering firm of Gustave Eiffel, whose engineers drew its iron lattice."
)
OTHER = "penguins glaciers volcano orchestra saxophone lighthouse bicycle marathon harvest"
VERIFIER = "fake@sha256:000000000001"


class NamedJudge(FeatureJudge):
    """The fake judge with a verifier's name: calibrations belong to a verifier."""

    verifier_id = VERIFIER


@pytest.fixture
def engine() -> Iterator[GroundingEngine]:
    encoder = HashingEncoder()
    judge = NamedJudge(encoder, FAKE_JUDGE_WEIGHTS, FAKE_JUDGE_BIAS)
    built = GroundingEngine(encoder, judge)
    with serving(Checker(built, escalation=None)):
        yield built


def claims(count: int, seed: int = 0) -> list[str]:
    """Claims sharing more or fewer of the fact's words: scores spread over (0, 1)."""
    rng = random.Random(seed)
    words, noise = FACT.rstrip(".").split(), OTHER.split()
    out = []
    for _ in range(count):
        kept = sorted(rng.sample(range(len(words)), rng.randint(3, len(words))))
        text = [words[i] for i in kept] + rng.sample(noise, rng.randint(0, 4))
        out.append(" ".join(text) + ".")
    return out


def score(engine: GroundingEngine, claim: str) -> float:
    response = engine.check(CheckRequest(claim, (Fact(FACT),), enable_claim_level_score=True))
    weakest = response.weakest()
    assert weakest is not None and weakest.score is not None
    return weakest.score


def labels_file(tmp_path, engine, rule, count: int = 240, name: str = "labels.jsonl"):
    """A labels file whose labels follow `rule(score)`: where this scope cuts."""
    path = tmp_path / name
    with path.open("w") as out:
        for i, claim in enumerate(claims(count)):
            label = rule(score(engine, claim))
            out.write(
                json.dumps(
                    {"id": str(i), "claim": claim, "facts": [{"text": FACT}], "label": label}
                )
                + "\n"
            )
    return path


def calibrate(*args: str) -> str:
    out = io.StringIO()
    call_command("calibrate", *args, stdout=out)
    return out.getvalue()


def post(client, config: str, answer: str) -> dict:
    key = ApiKey.issue("tests")[1]
    body = {
        "answerCandidate": answer,
        "facts": [{"factText": FACT}],
        "groundingSpec": {"enableClaimLevelScore": True},
    }
    url = f"/v1/projects/p/locations/global/groundingConfigs/{config}:check"
    response = client.post(
        url, json.dumps(body), content_type="application/json", headers={"x-goog-api-key": key}
    )
    assert response.status_code == 200, response.content
    return response.json()


def lenient_scope(engine, tmp_path):
    """A scope whose team counts as supported what the engine scores from 0.35 up: its cut
    lies far below 0.6."""
    scores = sorted(score(engine, c) for c in claims(240))
    assert scores[len(scores) // 5] < 0.35 < 0.6 < scores[-len(scores) // 5], "spread needed"
    return labels_file(tmp_path, engine, lambda s: int(s >= 0.35))


def test_a_shifted_scope_gains_and_its_checks_follow_its_own_scale(client, engine, tmp_path):
    path = lenient_scope(engine, tmp_path)
    text = calibrate("--config", "films", "--labels", str(path), "--apply")
    found = Calibration.objects.get(kind=Scope.CONFIG, scope="films")
    assert found.state == Calibration.State.APPLIED and found.applied_by == "manage.py"
    fit = found.fits["feature_judge"]
    assert fit["ba_after"] > fit["ba_before"] and fit["gain_low"] > 0
    assert f"Applied {found.name}." in text

    middling = next(c for c in claims(240, seed=7) if 0.4 < score(engine, c) < 0.55)
    raw = score(engine, middling)
    mine = post(client, "films", middling)["claims"][0]
    other = post(client, "default_grounding_config", middling)["claims"][0]
    # The calibrated config reads the claim as supported and cites the fact; another
    # config keeps the engine's scale.
    assert mine["score"] > 0.6 > raw and mine["citationIndices"] == [0]
    assert mine["calibration"] == f"groundingConfigs/films/calibrations/{found.pk}"
    assert other["score"] == pytest.approx(raw) and "calibration" not in other
    assert "citationIndices" not in other

    undo(found, None)
    again = post(client, "films", middling)["claims"][0]
    assert again["score"] == pytest.approx(raw) and "calibration" not in again


def test_a_candidate_the_guard_refuses_is_never_applied(engine, tmp_path):
    path = labels_file(tmp_path, engine, lambda s: int(s >= 0.6))
    with pytest.raises(CommandError, match="not applied: No judge's guard passed"):
        calibrate("--config", "films", "--labels", str(path), "--apply")
    found = Calibration.objects.get(scope="films")
    assert found.state == Calibration.State.CANDIDATE
    assert "does not lie above zero" in found.fits["feature_judge"]["refused"]
    assert scale_for(Scope.CONFIG, "films", VERIFIER) is None
    with pytest.raises(CalibrationError):
        apply(found, None)


@pytest.mark.parametrize(
    ("rule", "count", "says"),
    [
        (lambda s: 1, 240, "all 240 labels are supported"),
        (lambda s: int(s >= 0.35), 20, "at least 30"),
    ],
)
def test_one_class_or_too_few_labels_say_why(engine, tmp_path, rule, count, says):
    path = labels_file(tmp_path, engine, rule, count)
    text = calibrate("--source", "chatbot", "--labels", str(path))
    assert says in text
    found = Calibration.objects.get(kind=Scope.SOURCE, scope="chatbot")
    assert says in found.fits["feature_judge"]["refused"]


def test_a_calibration_applies_to_its_own_scope_and_verifier_only(engine, tmp_path):
    path = lenient_scope(engine, tmp_path)
    calibrate("--label", "nightly", "--labels", str(path), "--apply")
    assert scale_for(Scope.LABEL, "nightly", VERIFIER) is not None
    assert scale_for(Scope.CONFIG, "nightly", VERIFIER) is None  # another kind of scope
    assert scale_for(Scope.LABEL, "weekly", VERIFIER) is None
    assert scale_for(Scope.LABEL, "nightly", "other@sha256:000000000002") is None


def test_applying_a_newer_one_undoes_the_one_before(engine, tmp_path):
    path = lenient_scope(engine, tmp_path)
    calibrate("--config", "films", "--labels", str(path), "--apply")
    calibrate("--config", "films", "--labels", str(path), "--apply")
    first, second = Calibration.objects.filter(scope="films").order_by("pk")
    assert (first.state, second.state) == (Calibration.State.UNDONE, Calibration.State.APPLIED)
    assert first.undone_by == "manage.py"


def test_batch_lines_follow_their_scope_and_record_it(engine, tmp_path):
    """A line labelled team=billing is checked on that label's scale and its stored
    result and export name the calibration; a line of another team keeps the engine's."""
    from grounding_app.batch import intake, running
    from grounding_app.batch.exports import jsonl_lines
    from grounding_app.batch.models import BatchChunk, BatchLine

    calibrate(
        "--label", "team=billing", "--labels", str(lenient_scope(engine, tmp_path)), "--apply"
    )
    name = Calibration.objects.get(scope="team=billing").name
    middling = next(c for c in claims(240, seed=7) if 0.4 < score(engine, c) < 0.55)
    rows = [
        {"claim": middling, "facts": [{"text": FACT}], "meta": {"team": team}}
        for team in ("billing", "search")
    ]
    job = intake.create_job("\n".join(json.dumps(r) for r in rows).encode(), send=False)
    for chunk in BatchChunk.objects.filter(job=job):
        running.run_chunk(chunk.pk)
    billing, search = BatchLine.objects.filter(job=job).order_by("number")
    mine = billing.result["candidates"][0]["segments"][0]
    other = search.result["candidates"][0]["segments"][0]
    assert mine["calibration"] == name and mine["score"] > 0.6 > other["score"]
    assert other["calibration"] is None and mine["verdict"] == "supported"
    exported = [json.loads(line) for line in jsonl_lines(job)]
    assert exported[0]["claims"][0]["calibration"] == name
    assert "calibration" not in exported[1]["claims"][0]


def test_a_trace_line_is_in_its_source_scope_first():
    from grounding_app.calibration.services import line_scopes

    labels = {"service": "chatbot", "format": "grounding", "team": "billing", "model": "x"}
    assert line_scopes(labels) == [
        (Scope.SOURCE, "chatbot"),
        (Scope.LABEL, "model=x"),
        (Scope.LABEL, "team=billing"),
    ]
    assert line_scopes({"format": "grounding"}) == []


def test_word_matching_scores_are_calibrated_on_their_own_map(client, engine):
    """A Hebrew claim, which word matching scores, is mapped by the word-matching map of
    its config; an English claim of the same answer keeps the engine's own scale."""
    from tests.calibration.test_fit import scope

    scores, labels = scope(200, -1.5)
    found = propose_calibration(
        Scope.CONFIG,
        "hebrew-bot",
        VERIFIER,
        [(s, "word_matching", y) for s, y in zip(scores, labels, strict=True)],
        "file labels.jsonl",
    )
    assert set(found.fits) == {"word_matching"} and not found.fits["word_matching"]["refused"]
    apply(found, None)
    hebrew = "מגדל אייפל הושלם בשנת 1889 בפריז."
    english = "The Eiffel Tower was completed in 1889 in Paris."
    body = {
        "answerCandidate": f"{english} {hebrew}",
        "facts": [{"factText": FACT}, {"factText": "מגדל אייפל הושלם בשנת 1889 בפריז לתערוכה."}],
        "groundingSpec": {"enableClaimLevelScore": True},
    }
    key = ApiKey.issue("tests")[1]
    url = "/v1/projects/p/locations/global/groundingConfigs/hebrew-bot:check"
    claims = client.post(
        url, json.dumps(body), content_type="application/json", headers={"x-goog-api-key": key}
    ).json()["claims"]
    by_judge = {c["checkedBy"]: c for c in claims}
    assert by_judge["WORD_MATCHING"]["calibration"] == found.name
    assert "calibration" not in by_judge["FEATURE_JUDGE"]
