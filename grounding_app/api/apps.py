from __future__ import annotations

from django.apps import AppConfig
from django.conf import settings


class ApiConfig(AppConfig):
    name = "grounding_app.api"
    label = "api"
    verbose_name = "Check-grounding API"

    def ready(self) -> None:
        from grounding_app.engine import use_verifier, warm_up_in_background

        # Every process (web, batch worker, command) judges with the configured verifier.
        use_verifier(settings.GROUNDING_VERIFIER_DIR)
        if settings.GROUNDING_PRELOAD:
            warm_up_in_background()
