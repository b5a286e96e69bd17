"""`{% live_admin_log %}`: the admin's "Recent actions" without entries about expired rows."""

from __future__ import annotations

from django import template
from django.contrib.admin.models import LogEntry
from django.db.models import QuerySet

from grounding_app.retention.expiry import stale_log_entries

register = template.Library()


@register.simple_tag
def live_admin_log(user: object, limit: int = 10) -> QuerySet[LogEntry]:
    """What Django's `get_admin_log ... for_user` gives, less the stale entries."""
    user_pk = getattr(user, "pk", None)
    if user_pk is None:
        return LogEntry.objects.none()
    entries = LogEntry.objects.filter(user__pk=user_pk)
    return entries.exclude(stale_log_entries()).select_related("content_type", "user")[:limit]
