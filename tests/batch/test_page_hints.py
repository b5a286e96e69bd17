"""The batch job page while a job waits and runs (issue 25, item 6): a hint while the
worker loads the model, no stale "no checked answers" chart, a cancel that asks first,
and a chart axis that never repeats a number."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from grounding_app.batch import intake, running
from grounding_app.batch.charts import histogram_svg
from grounding_app.batch.models import BatchChunk, BatchJob
from tests.batch.conftest import jsonl

pytestmark = pytest.mark.django_db


@pytest.fixture
def reviewer(make_user: Any) -> Client:
    client = Client()
    client.force_login(make_user("reviewer"))
    return client


def _y_ticks(svg: str) -> list[str]:
    return re.findall(r'class="chart-tick" text-anchor="end">(\d+)<', svg)


@pytest.mark.parametrize(
    ("counts", "ticks"),
    [([0] * 10, ["0"]), ([2] + [0] * 9, ["0", "1", "2"]), ([8] * 10, ["0", "2", "4", "6", "8"])],
)
def test_the_axis_never_repeats_a_number(counts: list[int], ticks: list[str]) -> None:
    wide, narrow, _ = histogram_svg(counts).split("</svg>")  # the two drawings' axes
    assert sorted(_y_ticks(wide), key=int) == sorted(_y_ticks(narrow), key=int) == ticks


def test_a_queued_job_says_what_it_waits_for(reviewer: Client) -> None:
    user = reviewer.get("/batch/").wsgi_request.user  # the owner, who is offered Cancel
    job = intake.create_job(jsonl(3), user=user, send=False)
    page = reviewer.get(job.get_absolute_url()).content.decode()
    assert "loads the model first" in page
    assert "no checked answers yet" not in page  # no empty chart while nothing is checked
    assert "The figures appear as lines are checked" in page
    assert re.search(r'action="[^"]*/cancel/" data-confirm="Cancel this job\?', page)


def test_a_running_job_draws_what_is_checked_so_far(reviewer: Client, fake_engine: Any) -> None:
    """Issue 32 item 4: no longer no chart until the end (which sat beside "Checked 35")."""
    job = intake.create_job(jsonl(60), send=False)
    running.run_chunk(BatchChunk.objects.filter(job=job).order_by("first").first().pk)
    job.refresh_from_db()
    assert job.status == BatchJob.Status.RUNNING
    page = reviewer.get(job.get_absolute_url()).content.decode()
    assert "loads the model first" not in page
    assert 'class="chart chart-wide"' in page and "Lines checked so far" in page
    for chunk_id in BatchChunk.objects.filter(job=job).values_list("pk", flat=True):
        running.run_chunk(chunk_id)
    done = reviewer.get(job.get_absolute_url()).content.decode()
    assert 'class="chart chart-wide"' in done and "Lines checked so far" not in done
