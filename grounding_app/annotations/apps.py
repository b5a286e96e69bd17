from __future__ import annotations

from django.apps import AppConfig


class AnnotationsConfig(AppConfig):
    name = "grounding_app.annotations"
    label = "annotations"
    verbose_name = "Annotation queues"
