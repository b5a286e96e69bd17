"""A real Celery worker assembles and checks traces: its sweeper thread turns complete
traces into lines of the source's rolling job, its pool checks them (the fake engine of
tests/batch/fake_worker.py), and a trace exported after the job was done reopens it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from grounding_app.batch.models import BatchJob, BatchLine
from grounding_app.traces.models import TraceSource
from grounding_lab.rag_traces import OPENINFERENCE, OPENLLMETRY
from tests.batch.conftest import running_workers, wait_for
from tests.traces.conftest import encode, record

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_worker_assembles_and_checks_traces(post_export: Any, tmp_path: Path) -> None:
    with running_workers("embedded", tmp_path) as workers:
        workers.start()
        assert post_export(encode(record(range(4), OPENLLMETRY))).status_code == 200

        def checked() -> int:
            return BatchLine.objects.filter(state=BatchLine.State.DONE).count()

        wait_for(lambda: checked() == 4, 60, "four answers checked by the worker")
        job = BatchJob.objects.get(pk=TraceSource.objects.get().job_id)
        wait_for(lambda: BatchJob.objects.get(pk=job.pk).status == "done", 30, "the job done")
        post_export(encode(record(range(4, 6), OPENINFERENCE)))
        wait_for(lambda: checked() == 6, 60, "two more answers checked in the same job")
        assert BatchLine.objects.filter(job=job).count() == 6
