"""JSONL items beyond LABELING_IMPORT_INLINE_ITEMS are checked by a worker (issue 32,
item 13): the engine checks every item, and 2,000 of them took minutes within the
request. The upload (or paste) is stored and answered at once with the job's page,
which shows the items checked so far and then the outcome: all imported, or none with
every bad line named."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from grounding_app.annotations import items, jobs
from grounding_app.annotations.models import ImportJob, Item, LabelingProject
from tests.annotations.conftest import client_for, film_jsonl

pytestmark = pytest.mark.django_db


@pytest.fixture
def few_inline(settings: Any) -> None:
    settings.LABELING_IMPORT_INLINE_ITEMS = 2


def test_many_items_are_checked_by_the_job_with_progress(
    make_project: Callable[..., LabelingProject],
    lead: Any,
    few_inline: None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    project = make_project(count=1)
    client = client_for(lead)
    response = client.post(f"/annotations/{project.pk}/import/", {"payload": film_jsonl(4)})
    job = ImportJob.objects.get()
    assert response.status_code == 302 and response["Location"] == job.get_absolute_url()
    assert job.kind == ImportJob.Kind.ITEMS and project.items.count() == 1  # none added yet
    page = client.get(job.get_absolute_url()).content.decode()
    assert "Waiting for a worker" in page and 'hx-trigger="every 1s"' in page

    seen: list[tuple[int, int]] = []
    monkeypatch.setattr(items, "PROGRESS_EVERY", 1)
    monkeypatch.setattr(jobs.ImportJob.objects, "filter", _watching(seen))
    assert jobs.run(job.pk)
    job.refresh_from_db()
    assert (job.status, job.imported, job.done, job.total) == ("done", 4, 4, 4)
    assert seen == [(0, 4), (1, 4), (2, 4), (3, 4)]
    assert project.items.count() == 5 and bytes(job.data) == b""
    partial = client.get(job.get_absolute_url(), headers={"HX-Request": "true"})
    assert "Imported 4 items, each checked by the engine." in partial.content.decode()
    assert "hx-trigger" not in partial.content.decode()


def _watching(seen: list[tuple[int, int]]) -> Callable[..., Any]:
    """ImportJob.objects.filter whose update() also records the progress written."""
    original = ImportJob.objects.filter

    def filter_(*args: Any, **kwargs: Any) -> Any:
        rows = original(*args, **kwargs)
        update = rows.update

        def recording(**fields: Any) -> int:
            if set(fields) == {"done", "total"}:
                seen.append((fields["done"], fields["total"]))
            return update(**fields)

        rows.update = recording
        return rows

    return filter_


def test_a_bad_line_stores_nothing_and_is_named(
    make_project: Callable[..., LabelingProject], lead: Any, few_inline: None
) -> None:
    project = make_project(count=1)
    body = film_jsonl(3) + "{not json\n"
    client_for(lead).post(f"/annotations/{project.pk}/import/", {"payload": body})
    job = ImportJob.objects.get()
    jobs.run(job.pk)
    job.refresh_from_db()
    assert job.status == "failed" and job.problems[0].startswith("line 4: not valid JSON")
    assert project.items.count() == 1
    page = client_for(lead).get(job.get_absolute_url()).content.decode()
    assert "Nothing imported; fix these lines and upload again" in page and "line 4" in page


def test_a_new_project_with_many_items_gets_them_through_the_job(
    lead: Any, annotators: list[Any], few_inline: None, fake_engine: object
) -> None:
    response = client_for(lead).post(
        "/annotations/new/",
        {"name": "Big", "overlap": "1", "extra_labels": "", "payload": film_jsonl(3)},
    )
    project = LabelingProject.objects.get(name="Big")
    job = ImportJob.objects.get(project=project)
    assert response["Location"] == job.get_absolute_url() and not Item.objects.exists()
    jobs.run(job.pk)
    assert project.items.count() == 3


def test_up_to_the_bound_items_are_imported_within_the_request(
    make_project: Callable[..., LabelingProject], lead: Any, few_inline: None
) -> None:
    project = make_project(count=1)
    response = client_for(lead).post(
        f"/annotations/{project.pk}/import/", {"payload": film_jsonl(2)}
    )
    assert response["Location"] == project.get_absolute_url()
    assert project.items.count() == 3 and not ImportJob.objects.exists()
