from __future__ import annotations

from django.apps import AppConfig
from django.conf import settings


class ApiConfig(AppConfig):
    name = "grounding_app.api"
    label = "api"
    verbose_name = "Check-grounding API"

    def ready(self) -> None:
        if settings.GROUNDING_PRELOAD:
            from grounding_app.engine import warm_up_in_background

            warm_up_in_background()
