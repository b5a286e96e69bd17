"""How far projects and annotators are, for the project list and the project page."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from django.db.models import Count, Q

from grounding_app.annotations.access import visible_projects
from grounding_app.annotations.allocation import open_items
from grounding_app.annotations.models import (
    Assignment,
    Item,
    ItemClaim,
    LabelingProject,
)


@dataclass(frozen=True)
class Progress:
    done: int  # items this annotator has submitted
    open: int  # items still there for them, the one in progress included

    @property
    def total(self) -> int:
        return self.done + self.open

    @property
    def percent(self) -> int:
        return round(100 * self.done / self.total) if self.total else 100


def annotator_progress(project: LabelingProject, user: Any) -> Progress:
    mine = Assignment.objects.filter(item__project=project, annotator=user).aggregate(
        done=Count("pk", filter=Q(status=Assignment.Status.SUBMITTED)),
        in_progress=Count("pk", filter=Q(status=Assignment.Status.IN_PROGRESS)),
    )
    available = open_items(project.pk, user, project.overlap).count()
    return Progress(mine["done"], mine["in_progress"] + available)


@dataclass(frozen=True)
class ProjectRow:
    project: LabelingProject
    items: int
    submitted: int  # labels handed in, all annotators
    mine: Progress | None  # this user's queue, where they are an annotator

    @property
    def needed(self) -> int:
        return self.items * self.project.overlap


def project_rows(user: Any) -> list[ProjectRow]:
    """The projects a user sees, with the team's progress and the user's own queue."""
    submitted = Q(items__assignments__status=Assignment.Status.SUBMITTED)
    projects = visible_projects(user).annotate(
        item_count=Count("items", distinct=True),
        submitted=Count("items__assignments", filter=submitted, distinct=True),
    )
    assigned = set(user.labeling_projects.values_list("pk", flat=True))
    return [
        ProjectRow(
            p,
            p.item_count,
            p.submitted,
            annotator_progress(p, user) if p.pk in assigned else None,
        )
        for p in projects
    ]


@dataclass(frozen=True)
class AnnotatorRow:
    username: str
    submitted: int
    in_progress: int
    skipped: int
    assigned: bool


@dataclass(frozen=True)
class ProjectSummary:
    items: int
    claims: int
    slots: int  # items x k: the labels the project needs
    submitted: int
    in_progress: int
    complete_items: int
    annotators: tuple[AnnotatorRow, ...]

    @property
    def percent(self) -> int:
        return min(100, round(100 * self.submitted / self.slots)) if self.slots else 0


def project_summary(project: LabelingProject) -> ProjectSummary:
    items = Item.objects.filter(project=project)
    submitted = Count("assignments", filter=Q(assignments__status=Assignment.Status.SUBMITTED))
    complete = items.annotate(done=submitted).filter(done__gte=project.overlap).count()
    by_status: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for username, status, count in (
        Assignment.objects.filter(item__project=project)
        .values_list("annotator__username", "status")
        .annotate(n=Count("pk"))
    ):
        by_status[username][status] = count
    assigned = set(project.annotators.values_list("username", flat=True))
    rows = tuple(
        AnnotatorRow(
            username,
            by_status[username][Assignment.Status.SUBMITTED],
            by_status[username][Assignment.Status.IN_PROGRESS],
            by_status[username][Assignment.Status.SKIPPED],
            username in assigned,
        )
        for username in sorted(assigned | set(by_status))
    )
    count = items.count()
    return ProjectSummary(
        items=count,
        claims=ItemClaim.objects.filter(item__project=project).count(),
        slots=count * project.overlap,
        submitted=sum(r.submitted for r in rows),
        in_progress=sum(r.in_progress for r in rows),
        complete_items=complete,
        annotators=rows,
    )
