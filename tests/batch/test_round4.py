"""Review round 4 (issue 32): a running job's page draws what is checked so far and
keeps it current with the progress it polls."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from grounding_app.batch import intake, running
from grounding_app.batch.models import BatchChunk, BatchJob
from tests.batch.conftest import grounding_line, jsonl
from tests.batch.test_lines import gemini_with_bad_offsets

pytestmark = pytest.mark.django_db


@pytest.fixture
def reviewer(make_user: Any) -> Client:
    client = Client()
    client.force_login(make_user("reviewer"))
    return client


def _half_done(fake_engine: Any) -> BatchJob:
    """A job of 40 lines whose first chunk (20 lines) is checked: still running."""
    job = intake.create_job(jsonl(40), send=False)
    running.run_chunk(BatchChunk.objects.filter(job=job).order_by("pk")[0].pk)
    job.refresh_from_db()
    assert job.active
    return job


def test_a_running_job_shows_what_is_checked_so_far(reviewer: Client, fake_engine: Any) -> None:
    job = _half_done(fake_engine)
    page = reviewer.get(job.get_absolute_url()).content.decode()
    assert "No checked answers yet" not in page
    assert "<svg" in page and 'class="chart chart-wide"' in page  # the chart of the 20 checked
    assert "<bdi>wiki</bdi>" in page  # the rate by source
    assert "Open review" in page  # the worst answers


def test_the_polled_progress_brings_the_results_along(reviewer: Client, fake_engine: Any) -> None:
    job = intake.create_job(jsonl(40), send=False)
    url = f"/batch/{job.public_id}/progress/?was=active&seen=0"
    idle = reviewer.get(url, headers={"HX-Request": "true"}).content.decode()
    assert "hx-swap-oob" not in idle  # nothing new checked: the results are left as they are
    running.run_chunk(BatchChunk.objects.filter(job=job).order_by("pk")[0].pk)
    moved = reviewer.get(url, headers={"HX-Request": "true"}).content.decode()
    assert re.search(r'id="results"[^>]*hx-swap-oob="true"', moved)
    assert re.search(r'id="rates"[^>]*hx-swap-oob="true"', moved)
    assert re.search(r'id="worst"[^>]*hx-swap-oob="true"', moved)
    assert "<bdi>wiki</bdi>" in moved and "Open review" in moved
    # The next poll says what it has seen, so it brings the results only when they change.
    assert "seen=20" in moved


def test_a_lines_warning_shows_on_the_job_page_and_in_its_review(
    reviewer: Client, fake_engine: Any
) -> None:
    job = intake.create_job(
        f"{grounding_line(1)}\n{gemini_with_bad_offsets()}".encode(), send=False
    )
    for chunk_id in BatchChunk.objects.filter(job=job).values_list("pk", flat=True):
        running.run_chunk(chunk_id)
    page = reviewer.get(job.get_absolute_url()).content.decode()
    assert "Checked with a warning" in page and "9999 is out of range" in page
    opened = reviewer.post(f"/batch/{job.public_id}/lines/2/review/")
    assert opened.status_code == 302
    review = reviewer.get(opened["Location"]).content.decode()
    assert "line 2 (checked all the same)" in review and "9999 is out of range" in review
    # The sources that came without text are named, so no score is no mystery.
    assert "came without text" in review
    assert "Not checkable: no source text" in review  # not "Cited", with no citation
