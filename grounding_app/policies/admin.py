"""Source policies in the admin, for superusers; people use the app's own pages."""

from __future__ import annotations

from django.contrib import admin

from grounding_app.policies.forms import PolicyForm
from grounding_app.policies.models import SourcePolicy


@admin.register(SourcePolicy)
class SourcePolicyAdmin(admin.ModelAdmin):
    form = PolicyForm
    list_display = ("name", "created_by", "updated_at")
    search_fields = ("name", "description")
    raw_id_fields = ("created_by",)
