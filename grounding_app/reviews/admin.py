from __future__ import annotations

from django.contrib import admin

from grounding_app.reviews.models import Review


@admin.register(Review)
class ReviewAdmin(admin.ModelAdmin):
    list_display = (
        "public_id",
        "source_format",
        "summary",
        "support_score",
        "created_by",
        "created_at",
    )
    list_filter = ("source_format", "summary", "engine_checked", "created_at")
    search_fields = ("search_text",)
    date_hierarchy = "created_at"
    raw_id_fields = ("rechecked_from", "created_by")
    readonly_fields = ("public_id", "created_at")
