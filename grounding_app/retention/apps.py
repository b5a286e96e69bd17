from __future__ import annotations

from django.apps import AppConfig


class RetentionConfig(AppConfig):
    name = "grounding_app.retention"
    label = "retention"
    verbose_name = "Retention"
