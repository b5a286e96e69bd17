from __future__ import annotations

from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "grounding_app.accounts"
    label = "accounts"
    verbose_name = "Accounts"
