"""Which chunk a broker message runs: the least-served active job's, never a cancelled
job's; every waiting chunk is claimed once."""

from __future__ import annotations

import pytest

from grounding_app.batch import intake, queueing, running
from grounding_app.batch.models import BatchChunk, BatchJob
from tests.batch.conftest import jsonl

pytestmark = pytest.mark.django_db


def _job(lines: int, settings) -> BatchJob:
    settings.BATCH_CHUNK_LINES = 1
    return intake.create_job(jsonl(lines), send=False)


def _job_of(chunk_id: int | None) -> int | None:
    return None if chunk_id is None else BatchChunk.objects.get(pk=chunk_id).job_id


def test_a_cancelled_jobs_chunks_are_never_claimed(settings) -> None:
    big = _job(50, settings)
    running.cancel(big)
    assert queueing.claim_next() is None
    small = _job(1, settings)
    assert _job_of(queueing.claim_next()) == small.pk


def test_the_least_served_job_goes_first(settings) -> None:
    big = _job(30, settings)
    first = [_job_of(queueing.claim_next()) for _ in range(3)]
    assert first == [big.pk] * 3
    small = _job(2, settings)  # uploaded later, but nothing of it has started
    assert [_job_of(queueing.claim_next()) for _ in range(2)] == [small.pk, small.pk]
    assert _job_of(queueing.claim_next()) == big.pk


def test_each_chunk_is_claimed_once(settings) -> None:
    job = _job(4, settings)
    claimed = [queueing.claim_next() for _ in range(5)]
    assert claimed[-1] is None
    assert sorted(claimed[:4]) == sorted(
        BatchChunk.objects.filter(job=job).values_list("pk", flat=True)
    )
    assert set(BatchChunk.objects.values_list("state", flat=True)) == {BatchChunk.State.RUNNING}


def test_waiting_lines_count_pending_lines_of_active_jobs(settings, make_user) -> None:
    user = make_user("reviewer")
    settings.BATCH_CHUNK_LINES = 20
    intake.create_job(jsonl(6, bad=(2,)), user=user, send=False)
    assert queueing.waiting_lines(created_by=user) == 5


def test_chunks_never_sent_are_taken_after_a_grace_period(settings, time_machine) -> None:
    time_machine.move_to("2030-01-01 12:00:00+00:00", tick=False)
    job = _job(3, settings)  # as if the web process died before sending anything
    chunks = sorted(BatchChunk.objects.filter(job=job).values_list("pk", flat=True))
    queueing.mark_sent(chunks[:1])
    assert queueing.take_unsent() == []  # the uploader may still be sending
    time_machine.shift(queueing.UNSENT_GRACE_SECONDS + 1)
    assert sorted(queueing.take_unsent()) == chunks[1:]
    assert queueing.take_unsent() == []


def test_a_local_jobs_chunks_are_left_to_the_command(settings) -> None:
    job = _job(2, settings)
    BatchJob.objects.filter(pk=job.pk).update(local=True)
    assert queueing.claim_next() is None
