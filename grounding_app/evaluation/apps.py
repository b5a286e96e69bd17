from __future__ import annotations

from django.apps import AppConfig


class EvaluationConfig(AppConfig):
    name = "grounding_app.evaluation"
    label = "evaluation"
    verbose_name = "Engine evaluation and benchmarks"
