from __future__ import annotations

from django.apps import AppConfig
from django.conf import settings


class ApiConfig(AppConfig):
    name = "grounding_app.api"
    label = "api"
    verbose_name = "Check-grounding API"

    def ready(self) -> None:
        from grounding_app.active_verifier.checker import checker

        # Every process judges with the active verifier (the configured one until the
        # Verifier page names another), loaded here or on the first check.
        if settings.GROUNDING_PRELOAD:
            checker().warm_up_in_background()
