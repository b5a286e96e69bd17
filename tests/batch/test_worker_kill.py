"""SIGKILL a real worker mid-job, start another: every line is checked, and written,
exactly once. In a module of its own, so that no other test's worker (whose sweeper
would take the stalled chunk too) runs beside it."""

from __future__ import annotations

import pytest

from grounding_app.batch import intake
from grounding_app.batch.models import BatchJob, BatchLine
from tests.batch.conftest import Workers, jsonl, wait_for

pytestmark = pytest.mark.django_db(transaction=True)


def _status(job: BatchJob) -> str:
    job.refresh_from_db()
    return job.status


def _finished(job: BatchJob) -> int:
    return BatchLine.objects.filter(job=job).exclude(state=BatchLine.State.PENDING).count()


def test_a_killed_worker_loses_nothing_and_repeats_nothing(workers: Workers) -> None:
    first = workers.start()
    job = intake.create_job(jsonl(200, slow=True), name="killed.jsonl")
    wait_for(lambda: _finished(job) >= 40, 60, "the first worker to check 40 lines")
    workers.kill(first)
    assert _finished(job) < 200, "the job finished before the kill; slow the fake engine down"
    workers.start()
    wait_for(lambda: _status(job) == BatchJob.Status.DONE, 120, "the second worker to finish")

    lines = BatchLine.objects.filter(job=job)
    assert lines.count() == 200
    assert lines.filter(state=BatchLine.State.DONE).count() == 200
    assert sorted(lines.values_list("number", flat=True)) == list(range(1, 201))
    assert not lines.filter(result__isnull=True).exists()
    # Both workers wrote results. The engine ran once per line, except at most for the
    # line the first worker was checking when it died, whose result it never wrote.
    assert len(set(lines.values_list("worker", flat=True))) == 2
    runs = workers.checks_run()
    assert set(runs) == set(lines.values_list("answer", flat=True))
    assert sum(runs.values()) - len(runs) <= 1
