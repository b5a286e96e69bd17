"""The embedded broker unwritable for 20 s (a read-only `var/`): the worker carries on
by itself once it is writable again, and the job finishes. In a module of its own, so
that no other worker's sweeper runs the job instead."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from grounding_app.batch import intake
from grounding_app.batch.models import BatchJob, BatchLine
from tests.batch.conftest import Workers, jsonl, running_workers, wait_for

pytestmark = pytest.mark.django_db(transaction=True)

FAULT_SECONDS = 20


def _finished(job: BatchJob) -> int:
    return BatchLine.objects.filter(job=job).exclude(state=BatchLine.State.PENDING).count()


def _status(job: BatchJob) -> str:
    job.refresh_from_db()
    return job.status


def test_a_worker_outlives_20_seconds_of_a_read_only_broker(tmp_path: Path, settings) -> None:
    settings.BATCH_CHUNK_LINES = 5
    flag = tmp_path / "broker-read-only"
    with running_workers("embedded", tmp_path) as workers:
        workers.env["FAKE_BROKER_READONLY"] = str(flag)
        worker = workers.start()
        job = intake.create_job(jsonl(100, slow=True), name="fault.jsonl")
        wait_for(lambda: _finished(job) >= 5, 60, "some lines to be checked")
        flag.touch()
        time.sleep(FAULT_SECONDS)
        flag.unlink()
        wait_for(lambda: _status(job) == BatchJob.Status.DONE, 90, "the job to finish")
        assert worker.poll() is None, _log(workers)
        assert BatchLine.objects.filter(job=job, state=BatchLine.State.DONE).count() == 100


def _log(workers: Workers) -> str:
    return "\n".join(path.read_text()[-3000:] for path in workers.logs.glob("w*.log"))
