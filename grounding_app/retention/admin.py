"""Admin: the one retention period (with the projects that override it) and the purge
history, which nobody may edit or delete."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import Model
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.utils.html import format_html_join

from grounding_app.retention.expiry import policies, project_days, related_model
from grounding_app.retention.models import Purge, RetentionSettings
from grounding_app.retention.purge import describe_counts


@admin.register(RetentionSettings)
class RetentionSettingsAdmin(admin.ModelAdmin):
    fields = ("retention_days", "project_periods", "updated_at")
    readonly_fields = ("project_periods", "updated_at")

    def has_add_permission(self, request: HttpRequest) -> bool:
        """Once: until an admin saves a period, RETENTION_DAYS applies."""
        return super().has_add_permission(request) and not RetentionSettings.objects.exists()

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def add_view(
        self,
        request: HttpRequest,
        form_url: str = "",
        extra_context: dict[str, object] | None = None,
    ) -> HttpResponse:
        """Once a period is saved, "add" (an old link, a bookmark) opens it instead; a
        stale add form posted then is refused (403), never applied unseen."""
        settings_row = RetentionSettings.objects.first()
        if settings_row is not None and request.method == "GET":
            return HttpResponseRedirect(
                reverse("admin:retention_retentionsettings_change", args=[settings_row.pk])
            )
        return super().add_view(request, form_url, extra_context)

    def changelist_view(
        self, request: HttpRequest, extra_context: dict[str, object] | None = None
    ) -> HttpResponse:
        """There is one period: the list opens it (the add form until one is saved)."""
        settings_row = RetentionSettings.objects.first()
        if settings_row is None:
            return HttpResponseRedirect(reverse("admin:retention_retentionsettings_add"))
        return HttpResponseRedirect(
            reverse("admin:retention_retentionsettings_change", args=[settings_row.pk])
        )

    @admin.display(description="Projects with their own period")
    def project_periods(self, obj: RetentionSettings) -> str:
        rows = []
        for policy in policies():
            if policy.project_field is None:
                continue
            project_model = related_model(policy.model, policy.project_field)
            overrides = project_days(project_model)
            projects = project_model._base_manager.filter(pk__in=overrides).order_by("pk")
            rows += [(str(project), overrides[project.pk]) for project in projects]
        if not rows:
            return "None: every project keeps its items for the site period."
        return format_html_join("", "<div>{}: {} days</div>", rows)


@admin.register(Purge)
class PurgeAdmin(admin.ModelAdmin):
    list_display = (
        "started_at",
        "trigger",
        "outcome",
        "total",
        "deleted",
        "retention_days",
        "cutoff",
    )
    list_filter = ("trigger", "started_at")
    date_hierarchy = "started_at"
    fields = (
        "started_at",
        "finished_at",
        "outcome",
        "trigger",
        "retention_days",
        "cutoff",
        "total",
        "deleted",
        "wal_truncated",
    )
    readonly_fields = fields

    @admin.display(description="Outcome")
    def outcome(self, obj: Purge) -> str:
        return obj.status

    @admin.display(description="Deleted")
    def deleted(self, obj: Purge) -> str:
        return ", ".join(describe_counts(obj.counts)) or "nothing"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False
