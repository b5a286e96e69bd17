"""Handing out items: each item gets at most k annotators, none of them twice (the
race is settled in `locking`)."""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Count, Q, QuerySet

from grounding_app.annotations.locking import lock_project
from grounding_app.annotations.models import (
    Assignment,
    Item,
    LabelingProject,
)

ALLOCATION_ATTEMPTS = 3


def _taken() -> Count:
    return Count("assignments", filter=Q(assignments__slot__isnull=False))


def open_items(project_id: int, user: Any, overlap: int) -> QuerySet[Item]:
    """Items this annotator has never had that still have a free slot."""
    return (
        Item.objects.filter(project_id=project_id)
        .exclude(assignments__annotator=user)
        .annotate(taken=_taken())
        .filter(taken__lt=overlap)
    )


def _allocate(project: LabelingProject, user: Any) -> Assignment | None:
    overlap = lock_project(project)
    if overlap is None:
        return None
    current = (
        Assignment.objects.filter(
            item__project_id=project.pk, annotator=user, status=Assignment.Status.IN_PROGRESS
        )
        .order_by("started_at", "id")
        .first()
    )
    if current is not None:
        return current
    # Items closest to k first, so that finished items (and agreement) come early.
    item = open_items(project.pk, user, overlap).order_by("-taken", "position").first()
    if item is None:
        return None
    used = set(
        Assignment.objects.filter(item=item, slot__isnull=False).values_list("slot", flat=True)
    )
    slot = next(s for s in range(overlap) if s not in used)
    return Assignment.objects.create(item=item, annotator=user, slot=slot)


def next_assignment(project: LabelingProject, user: Any) -> Assignment | None:
    """The annotator's unfinished item, else a new one with a free slot, else None."""
    for attempt in range(ALLOCATION_ATTEMPTS):
        try:
            with transaction.atomic():
                return _allocate(project, user)
        except IntegrityError:
            # Only where the lock is not enough (a database without row locks and no
            # serialising transactions): the constraint refused a taken slot; look again.
            if attempt == ALLOCATION_ATTEMPTS - 1:
                raise
    return None
