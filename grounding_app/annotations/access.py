"""Who may do what in labeling projects, and the refusal the views show."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from grounding_app.accounts.roles import ADMIN, REVIEWER, has_role
from grounding_app.annotations.models import (
    LabelingProject,
)


class LabelingError(ValueError):
    """A labeling action that cannot be done now; the message says why, for people."""


def is_lead(user: Any) -> bool:
    """Leads (reviewers and admins) create projects, see agreement, adjudicate, export."""
    return has_role(user, REVIEWER, ADMIN)


def visible_projects(user: Any) -> QuerySet[LabelingProject]:
    projects = LabelingProject.objects.all()
    return projects if is_lead(user) else projects.filter(annotators=user)


def can_manage(user: Any, project: LabelingProject) -> bool:
    """Only the project's owner, or an admin, edits it, picks its annotators and imports
    into it: another reviewer could otherwise name anyone an annotator and import
    labels as them."""
    if has_role(user, ADMIN):
        return True
    return is_lead(user) and project.created_by_id is not None and project.created_by_id == user.pk


def can_label(user: Any, project: LabelingProject) -> bool:
    return project.annotators.filter(pk=user.pk).exists()
