"""Where a trend's scale changed: the days a calibration of its scope was applied or
undone, so a step in the unsupported-claim rate reads as what it is (the same answers,
judged on another scale) and not as answers getting worse or better."""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, datetime, time, timedelta

from django.db.models import Q
from django.utils import timezone

from grounding_app.calibration.models import Calibration, Scope
from grounding_app.monitoring.trends import Scope as TrendScope


def _scopes(scope: TrendScope) -> Q:
    """The calibration scopes whose lines the trend counts: its trace source and its
    label, or, for every job, all of them."""
    wanted = Q(kind__in=(Scope.SOURCE, Scope.LABEL)) if not (scope.source or scope.key) else Q()
    if scope.source is not None:
        wanted |= Q(kind=Scope.SOURCE, scope=scope.source.service_name)
    if scope.key:
        wanted |= Q(kind=Scope.LABEL, scope=f"{scope.key}={scope.value}")
    return wanted


def changes(scope: TrendScope, days: int) -> dict[str, list[str]]:
    """UTC day ('YYYY-MM-DD') -> what changed the scale that day, in words."""
    start = datetime.combine(timezone.now().date() - timedelta(days=days - 1), time(), tzinfo=UTC)
    found = Calibration.objects.filter(_scopes(scope)).filter(
        Q(applied_at__gte=start) | Q(undone_at__gte=start)
    )
    marks: dict[str, list[str]] = defaultdict(list)
    for c in found.order_by("applied_at", "pk"):
        if c.applied_at is not None and c.applied_at >= start:
            marks[c.applied_at.date().isoformat()].append(f"{c.name} applied by {c.applied_by}")
        if c.undone_at is not None and c.undone_at >= start:
            marks[c.undone_at.date().isoformat()].append(f"{c.name} undone by {c.undone_by}")
    return dict(marks)
