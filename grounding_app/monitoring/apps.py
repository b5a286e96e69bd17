from __future__ import annotations

from django.apps import AppConfig


class MonitoringConfig(AppConfig):
    name = "grounding_app.monitoring"
    label = "monitoring"
    verbose_name = "Monitoring"
