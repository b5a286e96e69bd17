"""Imports into a labeling project that a worker reads (`ImportJob`): a Label Studio
export or JSONL items too large to read within the request.

The request stores the upload and answers at once with the job's page; after commit
one Celery message (`messages.send_import`, on the batch workers' queue) asks a worker
to read it (`tasks.run_import`). The worker writes its progress on the row and then
the outcome, and empties the upload. A broker that is down leaves the job queued (the
page says it waits for a worker); a worker killed mid-import leaves it running, and
the same upload may be sent again: Label Studio annotations already here count as
unchanged, and items are only stored once all are checked.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from grounding_app.annotations import label_studio
from grounding_app.annotations.items import add_items, checked_items
from grounding_app.annotations.messages import send_import
from grounding_app.annotations.models import ImportJob, LabelingProject
from grounding_app.common.importing import ImportProblems

logger = logging.getLogger(__name__)


def queue(
    project: LabelingProject,
    kind: str,
    data: bytes,
    *,
    name: str = "",
    user: Any = None,
    mapping: Mapping[str, str] | None = None,
) -> ImportJob:
    """Store the upload as a job and (after commit) send it to a worker."""
    job = ImportJob.objects.create(
        project=project,
        kind=kind,
        created_by=user if getattr(user, "is_authenticated", False) else None,
        name=name[:200],
        data=data,
        mapping=dict(mapping or {}),
    )
    transaction.on_commit(lambda: send(job.pk))
    return job


def send(job_id: int) -> None:
    try:
        send_import(job_id)
    except Exception:
        logger.exception("could not send import %s to the broker; it stays queued", job_id)


def _read(job: ImportJob, progress: Any) -> dict[str, Any]:
    """The outcome's fields of one job's import (raises what the import raises)."""
    if job.kind == ImportJob.Kind.LABEL_STUDIO:
        report = label_studio.import_annotations(
            job.project, bytes(job.data), job.mapping, progress, by=job.created_by
        )
        return {
            "imported": report.imported,
            "unchanged": report.unchanged,
            "problems": report.problems,
        }
    items = checked_items(bytes(job.data), progress)
    return {"imported": len(add_items(job.project, items))}


def run(job_id: int) -> bool:
    """The task's body: read the stored upload, writing progress and then the outcome
    on the row; False when the job was not queued (another worker took it)."""
    rows = ImportJob.objects.filter(pk=job_id)
    if not rows.filter(status=ImportJob.Status.QUEUED).update(status=ImportJob.Status.RUNNING):
        return False
    job = rows.select_related("project").get()

    def progress(done: int, total: int) -> None:
        rows.update(done=done, total=total)

    outcome: dict[str, Any] = {"status": ImportJob.Status.DONE, "done": F("total")}
    try:
        outcome.update(_read(job, progress))
    except label_studio.LabelStudioFileError as exc:
        outcome = {"status": ImportJob.Status.FAILED, "error": str(exc)}
    except ImportProblems as exc:
        outcome = {"status": ImportJob.Status.FAILED, "problems": exc.problems}
    except Exception:
        logger.exception("import %s failed", job_id)
        outcome = {
            "status": ImportJob.Status.FAILED,
            "error": "the import stopped on an unexpected error; the worker's log says why",
        }
    rows.update(**outcome, data=b"", finished_at=timezone.now())
    return True
