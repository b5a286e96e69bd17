"""Jobs through real Celery worker processes (never eager mode), on the embedded
SQLite transport and on Redis (skipped without one; CI has it)."""

from __future__ import annotations

import time

import pytest

from grounding_app.batch import services
from grounding_app.batch.models import BatchChunk, BatchJob, BatchLine
from tests.batch.conftest import Workers, jsonl, wait_for

pytestmark = pytest.mark.django_db(transaction=True)


def _status(job: BatchJob) -> str:
    job.refresh_from_db()
    return job.status


def _finished(job: BatchJob) -> int:
    return BatchLine.objects.filter(job=job).exclude(state=BatchLine.State.PENDING).count()


def test_a_job_of_200_lines_runs_through_a_worker(shared_workers: Workers) -> None:
    job = services.create_job(jsonl(200, bad=(17,)), name="two-hundred.jsonl")
    wait_for(lambda: _status(job) == BatchJob.Status.DONE, 120, "the job to finish")
    lines = BatchLine.objects.filter(job=job)
    assert lines.count() == 200
    assert lines.filter(state=BatchLine.State.DONE).count() == 199
    bad = lines.get(state=BatchLine.State.FAILED)
    assert bad.number == 17 and bad.error.startswith("line 17: ")
    assert not BatchChunk.objects.filter(job=job).exclude(state=BatchChunk.State.DONE).exists()
    assert lines.get(number=5).unsupported_count == 1  # every fifth claim is unsupported
    assert lines.get(number=4).summary == "supported"
    answers = set(lines.exclude(number=17).values_list("answer", flat=True))
    runs = shared_workers.checks_run()
    assert all(runs[answer] == 1 for answer in answers)


def test_a_cancelled_job_stops(shared_workers: Workers) -> None:
    job = services.create_job(jsonl(200, slow=True), name="cancel.jsonl")
    wait_for(lambda: _finished(job) >= 10, 60, "some lines to be checked")
    assert services.cancel(job)
    time.sleep(1.0)  # the line in flight is written; nothing after it
    stopped = _finished(job)
    time.sleep(1.0)
    assert _finished(job) == stopped < 200
    assert _status(job) == BatchJob.Status.CANCELLED
    assert BatchLine.objects.filter(job=job, state=BatchLine.State.PENDING).count() == 200 - stopped
