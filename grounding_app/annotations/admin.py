"""Admin views of the annotation queues: settings, items with their claims, assignments."""

from __future__ import annotations

from django.contrib import admin

from grounding_app.annotations.models import (
    Assignment,
    ClaimLabel,
    Item,
    ItemClaim,
    LabelingProject,
)


@admin.register(LabelingProject)
class LabelingProjectAdmin(admin.ModelAdmin):
    list_display = ("name", "overlap", "blind", "retention_days", "created_by", "created_at")
    list_filter = ("blind", "created_at")
    search_fields = ("name",)
    filter_horizontal = ("annotators",)
    raw_id_fields = ("created_by",)


class ItemClaimInline(admin.TabularInline):
    model = ItemClaim
    extra = 0
    fields = ("index", "start", "end", "text", "model_verdict", "model_score", "adjudicated_label")
    readonly_fields = ("index", "start", "end", "text", "model_verdict", "model_score")
    can_delete = False


@admin.register(Item)
class ItemAdmin(admin.ModelAdmin):
    list_display = ("__str__", "project", "position", "source", "created_at")
    list_filter = ("project", "source")
    search_fields = ("external_id", "answer")
    raw_id_fields = ("review",)
    inlines = (ItemClaimInline,)


class ClaimLabelInline(admin.TabularInline):
    model = ClaimLabel
    extra = 0
    fields = ("claim", "label", "cited_facts", "note")
    raw_id_fields = ("claim",)


@admin.register(Assignment)
class AssignmentAdmin(admin.ModelAdmin):
    list_display = ("item", "annotator", "status", "slot", "started_at", "submitted_at")
    list_filter = ("status", "item__project")
    raw_id_fields = ("item", "annotator")
    inlines = (ClaimLabelInline,)
