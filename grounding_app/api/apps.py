from __future__ import annotations

from django.apps import AppConfig


class ApiConfig(AppConfig):
    name = "grounding_app.api"
    label = "api"
    verbose_name = "Check-grounding API"
