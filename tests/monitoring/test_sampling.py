"""The sampler over three simulated days: the quota held, no claim twice, only claims in
the band (or where the judges disagree), shared out between sources."""

from __future__ import annotations

import io
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client

from grounding_app.annotations.items import create_project
from grounding_app.annotations.models import Item, ItemClaim
from grounding_app.batch.models import BatchLine
from grounding_app.monitoring import sampling
from grounding_app.monitoring.models import SampledClaim, SamplingRule
from tests.monitoring import data

pytestmark = pytest.mark.django_db

FIRST = date(2026, 11, 30)
THRESHOLD = 0.6  # the jobs' default citation threshold
BAND = 0.1


def _line(job: object, number: int, day: date, stratum: str, scores: list[float]) -> BatchLine:
    made = data.line(
        job,  # type: ignore[arg-type]
        number,
        datetime.combine(day, datetime.min.time(), tzinfo=UTC) + timedelta(hours=9),
        claim_list=[(f"claim {number}.{i}", "supported", s) for i, s in enumerate(scores)],
    )
    made.source = stratum
    made.answer = " ".join(f"claim {number}.{i}" for i in range(len(scores)))
    made.save(update_fields=["source", "answer"])
    return made


def _fill(job: object, day: date, first: int) -> None:
    """Per day: 6 web answers and 2 mobile ones, each with a claim in the band and two
    outside it."""
    for n in range(6):
        _line(job, first + n, day, "web", [0.95, 0.55 + n * 0.02, 0.1])
    for n in range(2):
        _line(job, first + 6 + n, day, "mobile", [0.65 - n * 0.01, 0.3, 0.99])


def test_three_days() -> None:
    source = data.source()
    job = data.job("rolling", of=source, day=FIRST)
    project = create_project(None, name="production labels")
    rule = SamplingRule.objects.create(source=source, project=project, band=BAND, daily_quota=5)
    seen: set[tuple[int, int]] = set()
    for offset in range(3):
        today = FIRST + timedelta(days=offset)
        _fill(job, today, 1 + offset * 8)
        sent = sampling.sample(rule, today)
        again = sampling.sample(rule, today)  # a second run the same day
        assert again == []
        assert len(sent) == 5  # quota held, and filled while candidates remain
        keys = {(s.line_id, s.segment) for s in sent}
        assert len(keys) == 5 and not keys & seen  # never the same claim twice
        seen |= keys
        for s in sent:
            assert s.score is not None and abs(s.score - THRESHOLD) <= BAND + 1e-9
            assert s.segment in (0, 1)  # the in-band claim of its answer
        strata = sorted(s.stratum for s in sent)
        assert "mobile" in strata and "web" in strata  # stratified: each source gets a turn
    assert SampledClaim.objects.count() == 15
    assert ItemClaim.objects.filter(item__project=project).count() == 15
    scores = list(ItemClaim.objects.values_list("model_score", flat=True))
    assert all(s is not None and abs(s - THRESHOLD) <= BAND + 1e-9 for s in scores)
    item = Item.objects.filter(project=project).first()
    assert item is not None and item.meta["sampled_by"] == rule.pk


def test_least_sure_first_and_disagreement() -> None:
    job = data.job("uploaded")
    project = create_project(None, name="p")
    far = _line(job, 1, FIRST, "", [0.52])  # 0.08 from the threshold
    near = _line(job, 2, FIRST, "", [0.61])  # 0.01
    disagree = _line(job, 3, FIRST, "", [0.95])  # sure, but Gemini's judge says no
    result = disagree.result or {}
    result["candidates"][0]["segments"][0]["confidence"] = [0.2]
    disagree.result = result
    disagree.save(update_fields=["result"])
    rule = SamplingRule.objects.create(job=job, project=project, band=BAND, daily_quota=2)
    sent = sampling.sample(rule, FIRST)
    assert [s.line_id for s in sent] == [disagree.pk, near.pk]
    rule.daily_quota = 3
    rule.save()
    call_command("sample_claims", "--day", FIRST.isoformat(), stdout=io.StringIO())
    assert set(SampledClaim.objects.values_list("line_id", flat=True)) == {
        far.pk,
        near.pk,
        disagree.pk,
    }


def test_pick_shares_the_quota_between_strata() -> None:
    found = [sampling.Candidate(i, 0, "a", i / 100) for i in range(5)]
    found.append(sampling.Candidate(9, 0, "b", 0.5))
    assert [c.line_id for c in sampling.pick(found, 3)] == [0, 9, 1]


def test_the_page_lists_rules_and_admins_add_them(
    make_user: Callable[..., Any], client: Client
) -> None:
    source = data.source()
    project = create_project(None, name="production labels")
    client.force_login(make_user("reviewer"))
    assert client.post("/monitoring/sampling/", {}).status_code == 403
    client.force_login(make_user("admin"))
    job = data.job("uploaded")
    both = {"source": source.pk, "job": job.pk, "project": project.pk, "band": 0.1}
    response = client.post("/monitoring/sampling/", {**both, "daily_quota": 20})
    assert response.status_code == 400 and b"not both" in response.content
    assert SamplingRule.objects.count() == 0
    made = {"source": source.pk, "project": project.pk, "band": 0.1, "daily_quota": 20}
    assert client.post("/monitoring/sampling/", {**made, "enabled": "on"}).status_code == 302
    rule = SamplingRule.objects.get()
    assert (rule.source, rule.job, rule.daily_quota, rule.enabled) == (source, None, 20, True)
    _line(job, 1, FIRST, "web", [0.6])
    SampledClaim.objects.create(rule=rule, line=BatchLine.objects.get(), segment=0, day=FIRST)
    html = client.get("/monitoring/sampling/").content.decode()
    assert (
        f'data-rule="{rule.pk}"' in html and "support-bot" in html and "production labels" in html
    )


def test_an_annotator_labels_a_sampled_claim(make_user: Callable[..., Any], client: Client) -> None:
    annotator = make_user("annotator", "ann")
    job = data.job("uploaded")
    project = create_project(None, name="p", overlap=1, annotators=[annotator])
    _line(job, 1, FIRST, "web", [0.95, 0.58, 0.2])
    rule = SamplingRule.objects.create(job=job, project=project, daily_quota=5)
    assert len(sampling.sample(rule, FIRST)) == 1
    client.force_login(annotator)
    opened = client.post(f"/annotations/{project.pk}/next/", follow=True)
    assert opened.status_code == 200
    html = opened.content.decode()
    # The whole answer reads as context; only the sampled claim is asked about.
    assert '<span class="ann-claim" dir="ltr" data-claim-ref="1">claim 1.1</span>' in html
    assert html.count('class="ann-claim"') == 1
