"""Row locks where labeling requests race.

Handing out items is the one place where requests race: `next_assignment` runs in one
transaction that first takes `lock_project` (`SELECT ... FOR UPDATE` on PostgreSQL; on
SQLite the IMMEDIATE transactions configured in settings already let one writer in at
a time), and the unique (item, annotator) and (item, slot) constraints back it up in
the database itself, so no item ever gets more than k annotators, nor one twice.
"""

from __future__ import annotations

from grounding_app.annotations.access import LabelingError
from grounding_app.annotations.models import (
    Assignment,
    LabelingProject,
)


def lock_project(project: LabelingProject) -> int | None:
    """Lock the project row until the transaction ends; its current overlap (None if gone)."""
    return (
        LabelingProject.objects.select_for_update()
        .filter(pk=project.pk)
        .values_list("overlap", flat=True)
        .first()
    )


def locked_open(assignment: Assignment) -> Assignment:
    """The assignment row locked for a change, refused once it is handed in or given back."""
    locked = Assignment.objects.select_for_update().get(pk=assignment.pk)
    if locked.status == Assignment.Status.SUBMITTED:
        raise LabelingError("This item was already submitted; its labels can no longer change.")
    if locked.status == Assignment.Status.SKIPPED:
        raise LabelingError("This item was skipped; ask for the next item instead.")
    return locked
