"""Create the first admin on a fresh install and say how to log in.

Idempotent: with a superuser already there it only repeats where the password was
written. The password is random, shown once and kept in a file (0600) so the person who
ran the set-up can find it again; ADMIN_PASSWORD overrides it. The file belongs to one
database: `var/admin_password` for the default `var/db.sqlite3`, `<name>.admin_password`
beside any other SQLite file, `var/admin_password-<host>-<port>-<name>` for a server, so
setting up a second database never overwrites the first one's password.
"""

from __future__ import annotations

import os
import re
import secrets
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandParser
from django.db import connection


def password_file(database: dict[str, Any]) -> Path:
    """Where the first admin's password of `database` (a settings dict) is kept."""
    var = Path(settings.BASE_DIR) / "var"
    name = str(database["NAME"])
    if database["ENGINE"] == "django.db.backends.sqlite3":
        path = Path(name).resolve()
        if path == (var / "db.sqlite3").resolve():
            return var / "admin_password"
        return path.with_name(f"{path.stem}.admin_password")
    where = f"{database.get('HOST') or 'localhost'}-{database.get('PORT') or 'default'}-{name}"
    return var / f"admin_password-{re.sub(r'[^A-Za-z0-9_.-]', '_', where)}"


class Command(BaseCommand):
    help = "Create a first superuser if there is none, and print how to log in."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--username", default=os.environ.get("ADMIN_USERNAME", "admin"))
        parser.add_argument("--url", default="http://127.0.0.1:8000/admin/")

    def handle(self, *args: object, **options: Any) -> None:
        user_model = get_user_model()
        path = password_file(connection.settings_dict)
        username = str(options["username"])
        url = options["url"]
        if user_model.objects.filter(is_superuser=True).exists():
            where = f" (password in {path})" if path.exists() else ""
            self.stdout.write(f"An admin exists. Log in at {url}{where}")
            return
        password = os.environ.get("ADMIN_PASSWORD") or secrets.token_urlsafe(12)
        user_model.objects.create_superuser(username=username, email="", password=password)
        path.parent.mkdir(exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(password + "\n")
        self.stdout.write(
            self.style.SUCCESS(
                f"Created admin. Log in at {url} as {username!r} with password {password!r}"
                f" (also saved in {path})."
            )
        )
