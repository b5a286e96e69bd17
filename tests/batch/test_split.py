"""A large upload is answered at once: stored whole, split into lines by a worker
(issue 32, item 9), and a retried upload (same requestId, Idempotency-Key or upload
form) returns the first job. Through gunicorn: tests/test_serve_uploads.py."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client, override_settings
from django.utils import timezone

from grounding_app.api.models import ApiKey
from grounding_app.batch import intake, queueing, running
from grounding_app.batch.models import BatchChunk, BatchJob, BatchLine, BatchUpload
from tests.batch.conftest import jsonl

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("inline_up_to_five")]


@pytest.fixture
def inline_up_to_five() -> Any:
    with override_settings(BATCH_SPLIT_INLINE_LINES=5, BATCH_CHUNK_LINES=4):
        yield


def test_a_large_upload_is_stored_and_split_later() -> None:
    job = intake.receive_job(jsonl(10, bad=(3,)), name="big.jsonl")
    assert (job.status, job.total) == (BatchJob.Status.SPLITTING, 10)
    assert not BatchLine.objects.filter(job=job).exists()
    assert BatchUpload.objects.filter(job=job).exists()
    assert intake.split_job(job.pk, send=False) is True
    job.refresh_from_db()
    assert (job.status, job.total) == (BatchJob.Status.QUEUED, 10)
    assert BatchLine.objects.filter(job=job).count() == 10
    assert BatchLine.objects.get(job=job, number=3).state == BatchLine.State.FAILED
    assert list(BatchChunk.objects.filter(job=job).values_list("first", "last")) == [
        (1, 5),
        (6, 9),
        (10, 10),
    ]
    assert not BatchUpload.objects.exists()
    assert intake.split_job(job.pk, send=False) is False  # split twice: once
    assert BatchChunk.objects.filter(job=job).count() == 3


def test_a_small_upload_is_split_in_the_request() -> None:
    job = intake.receive_job(jsonl(5))
    assert job.status == BatchJob.Status.QUEUED and BatchLine.objects.filter(job=job).count() == 5


def test_a_split_run_again_mid_way_keeps_the_lines_it_finds() -> None:
    job = intake.receive_job(jsonl(10))
    BatchLine.objects.create(job=job, number=1, raw="kept")  # a first split died here
    assert intake.split_job(job.pk, send=False)
    assert BatchLine.objects.filter(job=job).count() == 10
    assert BatchLine.objects.get(job=job, number=1).raw == "kept"


def test_a_job_cancelled_while_splitting_stays_cancelled() -> None:
    job = intake.receive_job(jsonl(10))
    assert running.cancel(job)
    assert intake.split_job(job.pk, send=False) is False
    job.refresh_from_db()
    assert job.status == BatchJob.Status.CANCELLED and not BatchChunk.objects.exists()
    assert not BatchUpload.objects.exists()


def test_the_sweeper_splits_what_waits_too_long() -> None:
    job = intake.receive_job(jsonl(10))
    assert intake.split_waiting(timedelta(seconds=60)) == []
    BatchJob.objects.filter(pk=job.pk).update(created_at=timezone.now() - timedelta(minutes=5))
    assert intake.split_waiting(timedelta(seconds=60)) == [job.pk]
    assert BatchLine.objects.filter(job=job).count() == 10


def test_a_splitting_job_counts_its_lines_as_waiting() -> None:
    api_key, _ = ApiKey.issue("quota")
    intake.receive_job(jsonl(10), api_key=api_key)
    assert queueing.waiting_lines(api_key=api_key) == 10


def test_the_api_answers_a_large_upload_splitting_and_a_retry_with_the_first_job(
    client: Client,
) -> None:
    key = ApiKey.issue("split")[1]
    headers = {"x-goog-api-key": key, "Idempotency-Key": "upload-1"}
    first = client.post("/v1/batchJobs", jsonl(10), "application/x-ndjson", headers=headers)
    assert first.status_code == 200
    assert (first.json()["state"], first.json()["totalLines"]) == ("SPLITTING", 10)
    again = client.post("/v1/batchJobs", jsonl(10), "application/x-ndjson", headers=headers)
    assert again.json()["name"] == first.json()["name"] and BatchJob.objects.count() == 1


def test_the_upload_form_sent_twice_makes_one_job(make_user: Any) -> None:
    reviewer = Client()
    reviewer.force_login(make_user("reviewer"))
    page = reviewer.get("/batch/").content.decode()
    request_id = re.search(r'name="request_id" value="([0-9a-f]{32})"', page)
    assert request_id is not None
    assert request_id.group(1) not in reviewer.get("/batch/").content.decode()  # fresh each time
    sent = []
    for _ in range(2):
        upload = SimpleUploadedFile("big.jsonl", jsonl(10))
        sent.append(
            reviewer.post(
                "/batch/",
                {"file": upload, "citation_threshold": "0.6", "request_id": request_id.group(1)},
            )
        )
    job = BatchJob.objects.get()
    assert [r["Location"] for r in sent] == [job.get_absolute_url()] * 2
    assert job.status == BatchJob.Status.SPLITTING
    assert b"Splitting" in reviewer.get(job.get_absolute_url()).content
    other = Client()
    other.force_login(make_user("reviewer"))
    upload = SimpleUploadedFile("big.jsonl", jsonl(10))
    other.post(
        "/batch/", {"file": upload, "citation_threshold": "0.6", "request_id": request_id.group(1)}
    )
    assert BatchJob.objects.count() == 2  # another person's key is theirs
