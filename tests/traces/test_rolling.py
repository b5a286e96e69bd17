"""batch/rolling.py as the traces receiver uses it: appending lines to a live job."""

from __future__ import annotations

import json

import pytest

from grounding_app.batch import rolling, running
from grounding_app.batch.models import BatchChunk, BatchJob, BatchLine

pytestmark = pytest.mark.django_db

GOOD = json.dumps({"id": "a", "facts": [{"text": "A is 1."}], "claim": "A is 1."})


def test_appended_lines_are_numbered_on_and_bad_ones_fail_with_their_reason(
    fake_engine: object,
) -> None:
    job = rolling.create(name="rolling")
    assert (job.status, job.total) == (BatchJob.Status.DONE, 0)
    first = rolling.append(job, [GOOD, "{not json"], send=False)
    assert first == rolling.Appended((1, 2), 1)
    second = rolling.append(job, [GOOD], send=False)
    assert second.numbers == (3,)
    job.refresh_from_db()
    assert (job.total, job.status) == (3, BatchJob.Status.RUNNING)
    bad = BatchLine.objects.get(job=job, number=2)
    assert bad.state == BatchLine.State.FAILED and bad.error.startswith("line 2")
    for chunk in BatchChunk.objects.filter(job=job):
        running.run_chunk(chunk.pk)
    job.refresh_from_db()
    assert job.status == BatchJob.Status.DONE
    assert list(BatchLine.objects.filter(job=job).values_list("state", flat=True)) == [
        "done",
        "failed",
        "done",
    ]


def test_a_cancelled_job_takes_no_lines() -> None:
    job = rolling.create(name="rolling")
    rolling.append(job, [GOOD], send=False)
    running.cancel(job)
    with pytest.raises(rolling.JobClosed):
        rolling.append(job, [GOOD], send=False)
    assert BatchLine.objects.filter(job=job).count() == 1
