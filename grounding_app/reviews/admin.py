"""Reviews in the admin; its search reads the folded search text (folding.py)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from grounding_app.reviews.folding import fold
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

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[Review], search_term: str
    ) -> tuple[QuerySet[Review], Any]:
        """The term folded as the stored text is, so "Mbappé" finds "mbappe" here too."""
        return super().get_search_results(request, queryset, fold(search_term))
