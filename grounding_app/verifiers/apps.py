from __future__ import annotations

from django.apps import AppConfig


class VerifiersConfig(AppConfig):
    name = "grounding_app.verifiers"
    label = "verifiers"
    verbose_name = "Verifier page"
