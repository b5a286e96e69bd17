from __future__ import annotations

from django.apps import AppConfig


class CountersConfig(AppConfig):
    name = "grounding_app.counters"
    label = "counters"
    verbose_name = "Shared counters"
