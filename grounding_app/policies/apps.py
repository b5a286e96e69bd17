from __future__ import annotations

from django.apps import AppConfig


class PoliciesConfig(AppConfig):
    name = "grounding_app.policies"
    label = "policies"
    verbose_name = "Source policies"
