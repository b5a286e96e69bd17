"""The alert and sampling rule forms (issue 44, item 19): a real prompt in every select,
a checkbox beside its label, only the chosen kind's (or scope's) fields shown and saved,
and the label keys and values seen on recent lines offered in the free-text boxes."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from grounding_app.annotations.items import create_project
from grounding_app.monitoring.models import AlertRule, SamplingRule
from tests.monitoring import data

pytestmark = pytest.mark.django_db

URL = "https://hooks.example.com/grounding"


@pytest.fixture
def admin(client: Client, make_user: Callable[..., Any]) -> Client:
    client.force_login(make_user("admin"))
    return client


def test_the_alert_form_prompts_groups_by_kind_and_offers_known_labels(admin: Client) -> None:
    job = data.job("eval")
    data.line(job, 1, timezone.now(), labels={"model": "large", "prompt": "v2"})
    html = admin.get("/monitoring/alerts/new/").content.decode()
    assert "---------" not in html
    assert '<option value="" selected>Every batch job (no trace source)</option>' in html
    assert re.search(r'<input type="radio" name="kind" value="rate"[^>]* checked>', html)
    assert "<legend>Alert when</legend>" in html
    assert (
        html.index('data-kind="rate"')
        < html.index('name="level"')
        < html.index('data-kind="low_scores"')
        < html.index('name="score_below"')
    )
    assert 'class="field field-check"' in html and 'type="checkbox" name="enabled"' in html
    assert 'list="known-label-keys"' in html and 'list="known-label-values"' in html
    assert '<datalist id="known-label-keys"><option value="model"></option>' in html
    assert '<option value="large" label="model"></option>' in html
    assert 'type="url" name="url"' in html


def test_only_the_chosen_kind_is_read(admin: Client) -> None:
    hidden_junk = {**data.ALERT_FORM, "kind": "low_scores", "level": "7", "min_answers": ""}
    answer = admin.post("/monitoring/alerts/new/", {**hidden_junk, "url": URL})
    assert answer.status_code == 302
    rule = AlertRule.objects.get()
    assert (rule.kind, rule.score_below, rule.count) == ("low_scores", 0.5, 3)
    assert (rule.level, rule.min_answers) == (0.2, 10)  # the defaults, not the junk
    missing = {**data.ALERT_FORM, "name": "y", "level": "", "url": URL}
    answer = admin.post("/monitoring/alerts/new/", missing)
    assert answer.status_code == 400 and "This rule kind needs it." in answer.content.decode()


def test_the_sampling_form_prompts_and_keeps_only_the_chosen_scope(admin: Client) -> None:
    source, job = data.source(), data.job("eval")
    project = create_project(None, name="production labels")
    html = admin.get("/monitoring/sampling/").content.decode()
    assert "---------" not in html
    for prompt in ("Choose a trace source", "Choose a batch job", "Choose a project"):
        assert f'<option value="" selected>{prompt}</option>' in html
    assert 'type="radio" name="draws_from" value="source"' in html
    assert 'data-scope="job"' in html and 'class="field field-check"' in html
    both = {"source": source.pk, "job": job.pk, "project": project.pk, "band": "0.1"}
    both |= {"daily_quota": "5", "enabled": "on"}
    assert admin.post("/monitoring/sampling/", {**both, "draws_from": "job"}).status_code == 302
    rule = SamplingRule.objects.get()
    assert (rule.job_id, rule.source_id) == (job.pk, None)
    edit = admin.get(f"/monitoring/sampling/{rule.pk}/edit/").content.decode()
    assert re.search(r'<input type="radio" name="draws_from" value="job"[^>]* checked>', edit)
    none = {**both, "draws_from": "source", "source": ""}
    answer = admin.post("/monitoring/sampling/", none)
    assert answer.status_code == 400 and "Choose a trace source." in answer.content.decode()


def test_the_compare_pickers_prompt(admin: Client) -> None:
    data.job("eval")
    html = admin.get("/monitoring/compare/").content.decode()
    assert "---------" not in html and '<option value="" selected>Choose a run</option>' in html
