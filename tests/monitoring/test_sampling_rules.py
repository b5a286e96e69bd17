"""Admins edit, pause and delete sampling rules; reviewers only read them. An edit applies
from the next run, a paused rule sends nothing, and a deleted rule's claims stay in its
labeling project; no rule ever sends a claim twice."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client

from grounding_app.annotations.items import create_project
from grounding_app.annotations.models import Item, ItemClaim, LabelingProject
from grounding_app.monitoring import sampling
from grounding_app.monitoring.models import SampledClaim, SamplingRule
from tests.monitoring import data
from tests.monitoring.test_sampling import FIRST, _line

pytestmark = pytest.mark.django_db


@pytest.fixture
def project() -> LabelingProject:
    return create_project(None, name="production labels")


@pytest.fixture
def rule(project: LabelingProject) -> SamplingRule:
    """A rule over one job whose first line has claims 0.01, 0.04 and 0.08 from the
    threshold (0.6), and 0.3 from it."""
    job = data.job("uploaded")
    _line(job, 1, FIRST, "web", [0.61, 0.64, 0.68, 0.9])
    return SamplingRule.objects.create(job=job, project=project, band=0.02, daily_quota=1)


def _settings(rule: SamplingRule, **changed: object) -> dict[str, object]:
    """The rule's form as an admin sends it back, with some values changed."""
    base: dict[str, object] = {
        "job": rule.job_id,
        "project": rule.project_id,
        "band": rule.band,
        "daily_quota": rule.daily_quota,
        "enabled": "on",
    }
    return {**base, **changed}


def _as(client: Client, user: Any) -> Client:
    client.force_login(user)
    return client


def test_the_edit_form_is_filled_in_and_an_admin_saves_it(
    make_user: Callable[..., Any], client: Client, rule: SamplingRule
) -> None:
    admin = _as(client, make_user("admin"))
    page = admin.get(f"/monitoring/sampling/{rule.pk}/edit/").content.decode()
    assert 'name="band" value="0.02"' in page and 'name="daily_quota" value="1"' in page
    assert f'<option value="{rule.job_id}" selected>' in page
    response = admin.post(
        f"/monitoring/sampling/{rule.pk}/edit/", _settings(rule, band=0.1, daily_quota=3)
    )
    assert response.status_code == 302
    rule.refresh_from_db()
    assert (rule.band, rule.daily_quota, rule.enabled) == (0.1, 3, True)


def test_bad_input_is_refused_with_its_reason_and_changes_nothing(
    make_user: Callable[..., Any], client: Client, rule: SamplingRule
) -> None:
    admin = _as(client, make_user("admin"))
    edit = f"/monitoring/sampling/{rule.pk}/edit/"
    wide = admin.post(edit, _settings(rule, band=0.9, daily_quota=40))
    assert wide.status_code == 400 and b"A band from above 0 to 0.5" in wide.content
    both = admin.post(edit, _settings(rule, source=data.source().pk))
    assert both.status_code == 400 and b"not both" in both.content
    state = admin.post(f"/monitoring/sampling/{rule.pk}/state/", {"state": "maybe"})
    assert state.status_code == 400
    assert b"Select a valid choice. maybe is not one of the available choices." in state.content
    missing = admin.post(f"/monitoring/sampling/{rule.pk}/state/", {})
    assert missing.status_code == 400 and b"This field is required." in missing.content
    rule.refresh_from_db()
    assert (rule.band, rule.daily_quota, rule.enabled, rule.source_id) == (0.02, 1, True, None)


def test_an_admin_pauses_and_resumes_a_rule(
    make_user: Callable[..., Any], client: Client, rule: SamplingRule
) -> None:
    admin = _as(client, make_user("admin"))
    state = f"/monitoring/sampling/{rule.pk}/state/"
    assert admin.post(state, {"state": "paused"}).status_code == 302
    assert admin.post(state, {"state": "paused"}).status_code == 302  # sent twice: still paused
    rule.refresh_from_db()
    assert not rule.enabled
    page = admin.get("/monitoring/sampling/").content.decode()
    assert ">paused</td>" in page and ">Resume</button>" in page
    assert admin.post(state, {"state": "active"}).status_code == 302
    rule.refresh_from_db()
    assert rule.enabled


def test_an_admin_deletes_a_rule_and_what_it_sent_stays(
    make_user: Callable[..., Any], client: Client, rule: SamplingRule, project: LabelingProject
) -> None:
    assert len(sampling.sample(rule, FIRST)) == 1
    admin = _as(client, make_user("admin"))
    page = admin.get("/monitoring/sampling/").content.decode()
    assert (
        'data-confirm="Delete this sampling rule? The 1 claim it sent stays in its labeling '
        'project, and a new rule may send it again."' in page
    )
    assert "stays in its labeling project when the rule is edited, paused or deleted" in page
    response = admin.post(f"/monitoring/sampling/{rule.pk}/delete/", follow=True)
    assert response.status_code == 200
    assert b"the 1 claim it sent stay in production labels" in response.content
    assert not SamplingRule.objects.exists() and not SampledClaim.objects.exists()
    assert Item.objects.filter(project=project).count() == 1
    assert ItemClaim.objects.filter(item__project=project).count() == 1
    assert admin.post(f"/monitoring/sampling/{rule.pk}/delete/").status_code == 404


def test_a_reviewer_reads_the_rules_and_changes_none(
    make_user: Callable[..., Any], client: Client, rule: SamplingRule
) -> None:
    reviewer = _as(client, make_user("reviewer"))
    page = reviewer.get("/monitoring/sampling/").content.decode()
    assert f'data-rule="{rule.pk}"' in page
    assert "data-confirm" not in page and "/edit/" not in page and ">Pause<" not in page
    assert reviewer.get(f"/monitoring/sampling/{rule.pk}/edit/").status_code == 403
    posts = {
        "edit/": _settings(rule, band=0.1),
        "state/": {"state": "paused"},
        "delete/": {},
    }
    for route, body in posts.items():
        assert reviewer.post(f"/monitoring/sampling/{rule.pk}/{route}", body).status_code == 403
    rule.refresh_from_db()
    assert (rule.band, rule.enabled) == (0.02, True)


def test_sampling_skips_a_paused_rule(rule: SamplingRule) -> None:
    """Paused while a run already holds it (a long `sample_all`): it still sends nothing."""
    loaded = SamplingRule.objects.get(pk=rule.pk)
    SamplingRule.objects.filter(pk=rule.pk).update(enabled=False)
    assert sampling.sample(loaded, FIRST) == []
    assert sampling.sample_all(FIRST) == {}
    assert not SampledClaim.objects.exists() and not Item.objects.exists()
    SamplingRule.objects.filter(pk=rule.pk).update(enabled=True)
    assert sampling.sample_all(FIRST) == {rule.pk: 1}


def test_an_edited_band_and_quota_apply_from_the_next_run(
    make_user: Callable[..., Any], client: Client, rule: SamplingRule
) -> None:
    loaded = SamplingRule.objects.get(pk=rule.pk)
    assert [s.segment for s in sampling.sample(loaded, FIRST)] == [0]  # band 0.02, quota 1
    admin = _as(client, make_user("admin"))
    edit = f"/monitoring/sampling/{rule.pk}/edit/"
    assert admin.post(edit, _settings(rule, band=0.1, daily_quota=5)).status_code == 302
    # The next run, even through the rule loaded before the edit: the wider band and the
    # larger quota, and never the claim sent before.
    assert sorted(s.segment for s in sampling.sample(loaded, FIRST)) == [1, 2]
    assert sampling.sample_all(FIRST + timedelta(days=1)) == {rule.pk: 0}
    sent = SampledClaim.objects.values_list("segment", flat=True)
    assert sorted(sent) == [0, 1, 2]
