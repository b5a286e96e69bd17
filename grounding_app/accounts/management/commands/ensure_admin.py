"""Create the first admin on a fresh install and say how to log in.

Idempotent: with a superuser already there it only repeats where the password was
written. The password is random, shown once and kept in var/admin_password (0600) so
the person who ran the set-up can find it again; ADMIN_PASSWORD overrides it.
"""

from __future__ import annotations

import os
import secrets
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandParser


class Command(BaseCommand):
    help = "Create a first superuser if there is none, and print how to log in."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--username", default=os.environ.get("ADMIN_USERNAME", "admin"))
        parser.add_argument("--url", default="http://127.0.0.1:8000/admin/")

    def handle(self, *args: object, **options: Any) -> None:
        user_model = get_user_model()
        password_file = settings.BASE_DIR / "var" / "admin_password"
        username = str(options["username"])
        url = options["url"]
        if user_model.objects.filter(is_superuser=True).exists():
            where = f" (password in {password_file})" if password_file.exists() else ""
            self.stdout.write(f"An admin exists. Log in at {url}{where}")
            return
        password = os.environ.get("ADMIN_PASSWORD") or secrets.token_urlsafe(12)
        user_model.objects.create_superuser(username=username, email="", password=password)
        password_file.parent.mkdir(exist_ok=True)
        fd = os.open(password_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(password + "\n")
        self.stdout.write(
            self.style.SUCCESS(
                f"Created admin. Log in at {url} as {username!r} with password {password!r}"
                f" (also saved in {password_file})."
            )
        )
