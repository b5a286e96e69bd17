"""A large Label Studio export read by a real Celery worker process (issue 32, item 13),
on the embedded SQLite transport and on Redis (skipped without one), as the batch
workers' tests run theirs."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from grounding_app.annotations.models import ImportJob, LabelingProject
from tests.annotations.conftest import client_for
from tests.annotations.test_label_studio import _annotate, _stored, _tasks
from tests.batch.conftest import shared_workers, wait_for  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.usefixtures("shared_workers")
def test_a_worker_reads_the_export_and_the_page_reports_it(
    make_project: Callable[..., LabelingProject],
    lead: Any,
    annotators: list[Any],
    settings: Any,
) -> None:
    settings.LABEL_STUDIO_INLINE_BYTES = 100
    project = make_project(count=4, overlap=2)
    tasks = _tasks(lead, project)
    _annotate(tasks, {"completed_by": 1}, "ann")
    client = client_for(lead)
    upload = SimpleUploadedFile("export.json", json.dumps(tasks).encode())
    response = client.post(
        f"/annotations/{project.pk}/label-studio/", {"file": upload, "annotators": "1 = ann"}
    )
    assert response.status_code == 302
    job = ImportJob.objects.get()

    def finished() -> bool:
        job.refresh_from_db()
        return not job.active

    wait_for(finished, 60, "the worker to read the export")
    assert (job.status, job.imported, job.problems) == ("done", 4, [])
    assert {who for who, _, _ in _stored(project)} == {"ann"}
    page = client.get(response["Location"]).content.decode()
    assert "<strong>4</strong> annotations imported" in page
