"""Sampling runs by itself once a UTC day, from the scheduler every batch worker starts
(the worker scripts/run starts, and the one production runs beside scripts/serve), and
an admin runs a rule now from its row: a POST with the CSRF token, its result in place."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, time, timedelta
from typing import Any
from unittest import mock

import pytest
from celery.signals import worker_ready, worker_shutdown
from django.test import Client
from django.utils import timezone

from grounding_app.annotations.items import create_project
from grounding_app.monitoring import sampling, tasks
from grounding_app.monitoring.models import SampledClaim, SamplingRule, SamplingRun
from tests.monitoring import data
from tests.monitoring.test_sampling import FIRST, _line

pytestmark = pytest.mark.django_db


@pytest.fixture
def rule() -> SamplingRule:
    """Quota 1 a day over a job whose line has three claims within the band."""
    job = data.job("uploaded")
    _line(job, 1, FIRST, "web", [0.61, 0.64, 0.68, 0.9])
    project = create_project(None, name="production labels")
    return SamplingRule.objects.create(job=job, project=project, band=0.1, daily_quota=1)


def test_every_worker_starts_the_sampling_scheduler() -> None:
    started = [r[1]() for r in worker_ready.receivers]
    stopped = [r[1]() for r in worker_shutdown.receivers]
    assert tasks.start_sampler in started and tasks.stop_sampler in stopped
    with mock.patch.object(tasks.sampler, "start") as start:
        tasks.start_sampler()
    start.assert_called_once()


def test_the_scheduler_runs_the_rules_once_a_day(rule: SamplingRule) -> None:
    assert sampling.run_daily(FIRST) == {rule.pk: 1}
    assert sampling.run_daily(FIRST) is None  # every later pass that day: nothing
    assert SampledClaim.objects.filter(day=FIRST).count() == 1
    run = SamplingRun.objects.get(day=FIRST)
    assert run.finished_at is not None and run.sent == 1
    after = FIRST + timedelta(days=1)
    assert sampling.run_daily(after) == {rule.pk: 1}
    assert SampledClaim.objects.count() == 2


def test_the_workers_pass_runs_today_once(rule: SamplingRule) -> None:
    noon = datetime.combine(FIRST, time(12), tzinfo=UTC)
    with mock.patch.object(tasks.timezone, "now", return_value=noon):
        tasks.sample_once()
        tasks.sample_once()
    assert SamplingRun.objects.count() == 1 and SampledClaim.objects.count() == 1


def test_a_failed_run_gives_the_day_back(rule: SamplingRule) -> None:
    failing = mock.patch.object(sampling, "sample_all", side_effect=RuntimeError("down"))
    with failing, pytest.raises(RuntimeError):
        sampling.run_daily(FIRST)
    assert not SamplingRun.objects.exists()
    assert sampling.run_daily(FIRST) == {rule.pk: 1}


def test_an_admin_runs_a_rule_now_in_place(
    make_user: Callable[..., Any], rule: SamplingRule
) -> None:
    _line(rule.job, 2, timezone.now().date(), "web", [0.62, 0.66])  # checked today
    client = Client(enforce_csrf_checks=True)
    client.force_login(make_user("admin"))
    page = client.get("/monitoring/sampling/").content.decode()
    run = f"/monitoring/sampling/{rule.pk}/run/"
    assert f'hx-post="{run}" hx-target="#ran-{rule.pk}"' in page
    assert f'id="ran-{rule.pk}" role="status"' in page
    assert client.post(run).status_code == 403  # no CSRF token
    token = client.cookies["csrftoken"].value
    answer = client.post(run, headers={"HX-Request": "true", "X-CSRFToken": token})
    html = answer.content.decode()
    assert answer.status_code == 200 and "Sent 1 claim to production labels now" in html
    assert f'<span id="sent-today-{rule.pk}" hx-swap-oob="true">1</span>' in html
    again = client.post(run, {"csrfmiddlewaretoken": token})  # without JavaScript
    assert again.status_code == 302
    follow = client.get("/monitoring/sampling/").content.decode()
    assert "Nothing sent: today&#x27;s quota (1) is already sent." in follow
    assert SampledClaim.objects.filter(rule=rule).count() == 1


def test_only_admins_run_a_rule(make_user: Callable[..., Any], rule: SamplingRule) -> None:
    client = Client()
    client.force_login(make_user("reviewer"))
    assert client.post(f"/monitoring/sampling/{rule.pk}/run/").status_code == 403
    assert client.get(f"/monitoring/sampling/{rule.pk}/run/").status_code in (403, 405)
    assert not SampledClaim.objects.exists()
