from __future__ import annotations

from django.apps import AppConfig
from django.conf import settings


class RetentionConfig(AppConfig):
    name = "grounding_app.retention"
    label = "retention"
    verbose_name = "Retention"

    def ready(self) -> None:
        if settings.RETENTION_PURGE_INTERVAL:
            from grounding_app.retention.scheduler import start_purging

            start_purging(settings.RETENTION_PURGE_INTERVAL)
