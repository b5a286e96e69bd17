from __future__ import annotations

from django.apps import AppConfig


class LabConfig(AppConfig):
    """The lab as a Django app: its management commands (grounding_eval, grounding_bench,
    train_verifier, package_verifier, adapt_verifier, ...), nothing a request reaches."""

    name = "grounding_lab"
    label = "grounding_lab"
    verbose_name = "Engine evaluation and benchmarks"
