from __future__ import annotations

from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "grounding_app.accounts"
    label = "accounts"
    verbose_name = "Accounts"

    def ready(self) -> None:
        # Connects the failed-sign-in counter before any sign-in form is used.
        from grounding_app.accounts import views  # noqa: F401
