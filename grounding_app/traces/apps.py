from __future__ import annotations

from django.apps import AppConfig


class TracesConfig(AppConfig):
    name = "grounding_app.traces"
    label = "traces"
    verbose_name = "Traces"

    def ready(self) -> None:
        """Register the assembly task and the worker's sweeper (celery.py discovers
        only batch's tasks)."""
        from grounding_app.traces import tasks  # noqa: F401
