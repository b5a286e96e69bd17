from __future__ import annotations

from django.apps import AppConfig


class ActiveVerifierConfig(AppConfig):
    name = "grounding_app.active_verifier"
    label = "active_verifier"
    verbose_name = "Active verifier"
