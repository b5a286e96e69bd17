"""Large Label Studio exports are read by a worker (issue 32, item 13): the request
stores the upload and answers at once with the import's page, which shows the progress
(htmx polls it) and then the report. The task's body runs here; a real worker runs it
in test_label_studio_worker.py."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from grounding_app.annotations import jobs, label_studio
from grounding_app.annotations.models import Assignment, ImportJob, LabelingProject
from tests.annotations.conftest import client_for
from tests.annotations.test_label_studio import _annotate, _stored, _tasks

pytestmark = pytest.mark.django_db


@pytest.fixture
def queued(settings: Any) -> None:
    settings.LABEL_STUDIO_INLINE_BYTES = 100  # every test export is larger


def _post(client: Client, project: LabelingProject, body: bytes, annotators: str) -> Any:
    upload = SimpleUploadedFile("export.json", body)
    return client.post(
        f"/annotations/{project.pk}/label-studio/", {"file": upload, "annotators": annotators}
    )


def test_a_large_export_is_stored_read_by_the_task_and_reported(
    make_project: Callable[..., LabelingProject], lead: Any, annotators: list[Any], queued: None
) -> None:
    project = make_project(count=4, overlap=2)
    tasks = _tasks(lead, project)
    _annotate(tasks, {"completed_by": 1}, "ann")
    _annotate(tasks, {"completed_by": 77}, "bob")
    client = client_for(lead)
    response = _post(client, project, json.dumps(tasks).encode(), "1 = ann")
    job = ImportJob.objects.get()
    assert response.status_code == 302 and response["Location"] == job.get_absolute_url()
    assert job.status == ImportJob.Status.QUEUED and bytes(job.data)
    assert job.mapping == {"1": "ann"} and job.created_by == lead
    assert not _stored(project)  # nothing read within the request

    page = client.get(job.get_absolute_url()).content.decode()
    assert "Waiting for a worker" in page and 'hx-trigger="every 1s"' in page

    assert jobs.run(job.pk)
    assert not jobs.run(job.pk)  # taken once only
    job.refresh_from_db()
    assert (job.status, job.total, job.done, job.imported) == ("done", 4, 4, 4)
    assert len(job.problems) == 4 and "map Label Studio user 77" in job.problems[0]
    assert bytes(job.data) == b"" and job.finished_at is not None
    assert {who for who, _, _ in _stored(project)} == {"ann"}
    # Issue 44 item 9: the labels name who imported them.
    assert {a.imported_by for a in Assignment.objects.filter(item__project=project)} == {lead}

    partial = client.get(job.get_absolute_url(), headers={"HX-Request": "true"})
    html = partial.content.decode()
    assert "<html" not in html and "hx-trigger" not in html
    assert "<strong>4</strong> annotations imported" in html and "Not imported" in html


def test_progress_is_written_while_the_tasks_are_read(
    make_project: Callable[..., LabelingProject],
    lead: Any,
    annotators: list[Any],
    queued: None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    project = make_project(count=4, overlap=2)
    tasks = _tasks(lead, project)
    _annotate(tasks, {"completed_by": 1}, "ann")
    _post(client_for(lead), project, json.dumps(tasks).encode(), "1 = ann")
    job = ImportJob.objects.get()
    seen: list[tuple[int, int, str]] = []
    store = label_studio._store

    def watch(*args: Any) -> str:
        row = ImportJob.objects.get(pk=job.pk)
        seen.append((row.done, row.total, row.status))
        return store(*args)

    monkeypatch.setattr(label_studio, "PROGRESS_EVERY", 2)
    monkeypatch.setattr(label_studio, "_store", watch)
    jobs.run(job.pk)
    assert seen == [(0, 4, "running"), (0, 4, "running"), (2, 4, "running"), (2, 4, "running")]
    ImportJob.objects.filter(pk=job.pk).update(status="running", done=2)
    page = client_for(lead).get(job.get_absolute_url()).content.decode()
    assert "2 of 4 tasks read." in page and 'value="50"' in page


def test_a_file_that_is_no_export_fails_the_import_with_its_reason(
    make_project: Callable[..., LabelingProject], lead: Any, annotators: list[Any], queued: None
) -> None:
    project = make_project(count=1)
    _post(client_for(lead), project, b'{"not": "a list of tasks"}' + b" " * 200, "")
    job = ImportJob.objects.get()
    jobs.run(job.pk)
    page = client_for(lead).get(job.get_absolute_url()).content.decode()
    assert "Nothing imported: not a Label Studio JSON export" in page
    assert "an array of tasks" in page


def test_only_leads_see_an_import_and_only_in_its_project(
    make_project: Callable[..., LabelingProject], lead: Any, annotators: list[Any], queued: None
) -> None:
    project, other = make_project(count=1), make_project(count=1)
    _post(client_for(lead), project, b"[]" + b" " * 200, "")
    job = ImportJob.objects.get()
    assert client_for(annotators[0]).get(job.get_absolute_url()).status_code == 403
    url = f"/annotations/{other.pk}/imports/{job.pk}/"
    assert client_for(lead).get(url).status_code == 404
