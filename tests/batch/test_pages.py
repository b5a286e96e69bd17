"""The batch pages: access, upload, progress polling, cancel, reviews on demand,
downloads (CSV formula guard), and the results page's figures."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from grounding_app.batch import intake, running
from grounding_app.batch.models import BatchChunk, BatchJob, BatchLine
from grounding_app.engine import GroundingEngine
from grounding_app.reviews.models import Review
from tests.batch.conftest import grounding_line, jsonl

pytestmark = pytest.mark.django_db


@pytest.fixture
def reviewer(make_user: Any) -> Client:
    client = Client()
    client.force_login(make_user("reviewer"))
    return client


@pytest.fixture
def done_job(fake_engine: GroundingEngine) -> BatchJob:
    job = intake.create_job(jsonl(30, bad=(2,)), name="log.jsonl", send=False)
    for chunk_id in BatchChunk.objects.filter(job=job).values_list("pk", flat=True):
        running.run_chunk(chunk_id)
    job.refresh_from_db()
    return job


def _routes(patterns: list[Any], prefix: str = "") -> list[tuple[str, Any]]:
    found = []
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            found.extend(_routes(pattern.url_patterns, prefix + str(pattern.pattern)))
        elif isinstance(pattern, URLPattern):
            found.append((prefix + str(pattern.pattern), pattern))
    return found


def test_every_batch_page_is_for_reviewers_and_admins() -> None:
    ours = [(r, p) for r, p in _routes(get_resolver().url_patterns) if r.startswith("batch/")]
    assert len(ours) == 7
    for route, pattern in ours:
        assert getattr(pattern.callback, "access_rule", None) == "roles: reviewer, admin", route


def test_outsiders_are_sent_away(make_user: Any, done_job: BatchJob) -> None:
    assert Client().get("/batch/").status_code == 302
    annotator = Client()
    annotator.force_login(make_user("annotator"))
    assert annotator.get("/batch/").status_code == 403
    assert annotator.get(f"/batch/{done_job.public_id}/results.csv").status_code == 403


def test_upload_creates_a_job_and_opens_its_page(reviewer: Client) -> None:
    upload = SimpleUploadedFile("answers.jsonl", jsonl(3, bad=(2,)))
    response = reviewer.post("/batch/", {"file": upload, "citation_threshold": "0.7"})
    job = BatchJob.objects.get()
    assert response.status_code == 302 and response["Location"] == job.get_absolute_url()
    assert (job.name, job.total, job.citation_threshold) == ("answers.jsonl", 3, 0.7)
    page = reviewer.get(job.get_absolute_url())
    assert b'hx-trigger="every 1s"' in page.content  # still queued: the bar polls
    assert b"line 2: not valid JSON" in page.content


@pytest.mark.parametrize(
    ("threshold", "data"),
    [("2", jsonl(1)), ("NaN", jsonl(1)), ("0.5", b"\n\n"), ("abc", jsonl(1))],
)
def test_a_bad_upload_shows_the_form_again(reviewer: Client, threshold: str, data: bytes) -> None:
    upload = SimpleUploadedFile("a.jsonl", data)
    response = reviewer.post("/batch/", {"file": upload, "citation_threshold": threshold})
    assert response.status_code == 400
    assert not BatchJob.objects.exists()


def test_progress_polls_until_the_job_is_over(reviewer: Client, fake_engine: Any) -> None:
    job = intake.create_job(jsonl(3), send=False)
    url = f"/batch/{job.public_id}/progress/?was=active"
    partial = reviewer.get(url, headers={"HX-Request": "true"})
    assert b'hx-trigger="every 1s"' in partial.content and b"<html" not in partial.content
    for chunk_id in BatchChunk.objects.filter(job=job).values_list("pk", flat=True):
        running.run_chunk(chunk_id)
    over = reviewer.get(url, headers={"HX-Request": "true"})
    assert over.headers["HX-Refresh"] == "true"  # the page reloads to show the results
    plain = reviewer.get(f"/batch/{job.public_id}/progress/")
    assert b"hx-trigger" not in plain.content and b"3 / 3" in plain.content


def test_cancel_from_the_page(reviewer: Client) -> None:
    user = reviewer.get("/batch/").wsgi_request.user  # the job's owner may cancel it
    job = intake.create_job(jsonl(3), user=user, send=False)
    response = reviewer.post(f"/batch/{job.public_id}/cancel/")
    assert response.status_code == 302
    job.refresh_from_db()
    assert job.status == BatchJob.Status.CANCELLED
    assert reviewer.get(f"/batch/{job.public_id}/cancel/").status_code == 405


def test_results_page(reviewer: Client, done_job: BatchJob) -> None:
    page = reviewer.get(done_job.get_absolute_url()).content.decode()
    assert "<svg" in page and 'class="chart-bar"' in page
    assert "Unsupported rate by <bdi>source</bdi>" in page
    assert "hx-trigger" not in page
    by_format = reviewer.get(done_job.get_absolute_url() + "?by=format").content.decode()
    assert "Unsupported rate by <bdi>format</bdi>" in by_format
    unknown = reviewer.get(done_job.get_absolute_url() + "?by=%3Cscript%3E").content.decode()
    assert "by <bdi>source</bdi>" in unknown and "<script>" not in unknown


def test_open_review_saves_it_once(reviewer: Client, done_job: BatchJob) -> None:
    url = f"/batch/{done_job.public_id}/lines/5/review/"
    first = reviewer.post(url)
    review = Review.objects.get()
    assert first["Location"] == review.get_absolute_url()
    assert reviewer.post(url)["Location"] == review.get_absolute_url()
    assert Review.objects.count() == 1
    assert reviewer.post(f"/batch/{done_job.public_id}/lines/2/review/").status_code == 404
    assert reviewer.get(review.get_absolute_url()).status_code == 200


def test_downloads(reviewer: Client, done_job: BatchJob) -> None:
    response = reviewer.get(f"/batch/{done_job.public_id}/results.jsonl")
    rows = [json.loads(line) for line in b"".join(response.streaming_content).splitlines()]
    assert [row["line"] for row in rows] == list(range(1, 31))
    assert rows[1] == {
        "line": 2,
        "state": "failed",
        "source": "",
        "labels": {},
        "error": rows[1]["error"],
    }
    assert rows[4]["claims"][0]["verdict"] == "unsupported"
    assert rows[4]["claims"][0]["startPos"] == 0
    assert rows[0]["id"] == "ex-1" and rows[0]["supportScore"] > 0.5

    csv_response = reviewer.get(f"/batch/{done_job.public_id}/results.csv")
    table = list(csv.reader(io.StringIO(b"".join(csv_response.streaming_content).decode())))
    assert table[0][0] == "line" and len(table) == 31
    assert 'attachment; filename="batch-' in csv_response["Content-Disposition"]


def test_csv_cells_never_run_as_formulas(reviewer: Client, fake_engine: Any) -> None:
    line = json.loads(grounding_line(1))
    line["claim"] = '=HYPERLINK("http://evil.example","x")'
    line["source"] = "+cmd"
    job = intake.create_job(json.dumps(line).encode(), send=False)
    running.run_chunk(BatchChunk.objects.get(job=job).pk)
    content = b"".join(reviewer.get(f"/batch/{job.public_id}/results.csv").streaming_content)
    row = list(csv.reader(io.StringIO(content.decode())))[1]
    assert row[2] == "'+cmd"
    assert row[9] == '\'=HYPERLINK("http://evil.example","x")'
    line_row = BatchLine.objects.get(job=job)
    assert line_row.answer.startswith("=")  # the JSONL export keeps it as it was


def test_upload_with_a_source_policy(reviewer: Client, fake_engine: Any) -> None:
    from grounding_app.policies.models import SourcePolicy

    policy = SourcePolicy.objects.create(name="No tabloids", excluded_domains=["tabloid.example"])
    upload = SimpleUploadedFile("answers.jsonl", jsonl(2))
    data = {"file": upload, "citation_threshold": "0.6", "source_policy": str(policy.pk)}
    reviewer.post("/batch/", data)
    job = BatchJob.objects.get()
    assert job.source_policy == policy
    running.run_chunk(BatchChunk.objects.get(job=job).pk)
    page = reviewer.get(job.get_absolute_url()).content.decode()
    assert "0 answers cite a source that <bdi>No tabloids</bdi> excludes." in page
    upload = SimpleUploadedFile("answers.jsonl", jsonl(2))
    bad = {"file": upload, "citation_threshold": "0.6", "source_policy": "9" * 30}
    assert reviewer.post("/batch/", bad).status_code == 400
