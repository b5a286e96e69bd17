"""Jobs through real Celery worker processes (never eager mode), on the embedded
SQLite transport and on Redis (skipped without one; CI has it)."""

from __future__ import annotations

import time

import pytest

from grounding_app.batch import intake, queueing, running
from grounding_app.batch.models import BatchChunk, BatchJob, BatchLine
from tests.batch.conftest import Workers, jsonl, wait_for

pytestmark = pytest.mark.django_db(transaction=True)


def _status(job: BatchJob) -> str:
    job.refresh_from_db()
    return job.status


def _finished(job: BatchJob) -> int:
    return BatchLine.objects.filter(job=job).exclude(state=BatchLine.State.PENDING).count()


def test_a_job_of_200_lines_runs_through_a_worker(shared_workers: Workers) -> None:
    job = intake.create_job(jsonl(200, bad=(17,)), name="two-hundred.jsonl")
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


def test_a_large_upload_is_split_and_run_by_a_worker(shared_workers: Workers, settings) -> None:
    """Issue 32, item 9: the upload is stored, a worker splits it and checks its lines."""
    settings.BATCH_SPLIT_INLINE_LINES = 50
    job = intake.receive_job(jsonl(120, bad=(7,)), name="split.jsonl")
    assert job.status == BatchJob.Status.SPLITTING
    wait_for(lambda: _status(job) == BatchJob.Status.DONE, 120, "the job to finish")
    lines = BatchLine.objects.filter(job=job)
    assert lines.count() == 120 and lines.filter(state=BatchLine.State.DONE).count() == 119


def test_a_cancelled_job_stops(shared_workers: Workers) -> None:
    job = intake.create_job(jsonl(200, slow=True), name="cancel.jsonl")
    wait_for(lambda: _finished(job) >= 10, 60, "some lines to be checked")
    assert running.cancel(job)
    time.sleep(1.0)  # the line in flight is written; nothing after it
    stopped = _finished(job)
    time.sleep(1.0)
    assert _finished(job) == stopped < 200
    assert _status(job) == BatchJob.Status.CANCELLED
    assert BatchLine.objects.filter(job=job, state=BatchLine.State.PENDING).count() == 200 - stopped


def test_a_cancelled_job_does_not_hold_up_the_next(workers: Workers, settings) -> None:
    # scripts/run's prefork pool, whose consumer takes about one message a second when
    # each task is over at once, as those of a cancelled job are.
    workers.env["FAKE_POOL"] = "prefork"
    workers.start()
    settings.BATCH_CHUNK_LINES = 1  # one broker message per line: 300 of them
    big = intake.create_job(jsonl(300, slow=True), name="big.jsonl")
    wait_for(lambda: _finished(big) >= 2, 60, "the big job to start")
    assert running.cancel(big)
    started = time.monotonic()
    small = intake.create_job(jsonl(1), name="one.jsonl")
    wait_for(lambda: _status(small) == BatchJob.Status.DONE, 15, "the one-line job")
    assert time.monotonic() - started < 15
    assert _finished(big) < 300


def test_the_worker_writes_a_heartbeat(shared_workers: Workers) -> None:
    # Every sweep (each second here) writes it; the previous test's flush removed it.
    wait_for(lambda: queueing.live_workers() >= 1, 10, "a heartbeat")
