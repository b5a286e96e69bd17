"""Batch jobs in the admin: read-only lists for finding a job; the pages do the rest."""

from __future__ import annotations

from django.contrib import admin

from grounding_app.batch.models import BatchJob


@admin.register(BatchJob)
class BatchJobAdmin(admin.ModelAdmin):
    list_display = ("public_id", "name", "status", "total", "created_by", "created_at")
    list_filter = ("status", "created_at")
    search_fields = ("name",)
    readonly_fields = ("public_id", "created_at", "started_at", "finished_at", "total")
    raw_id_fields = ("created_by", "api_key")
