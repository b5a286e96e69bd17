from __future__ import annotations

from django.apps import AppConfig


class BatchConfig(AppConfig):
    name = "grounding_app.batch"
    label = "batch"
    verbose_name = "Batch jobs"
