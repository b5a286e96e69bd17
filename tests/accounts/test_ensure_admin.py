"""`ensure_admin` keeps each database's first password in a file of that database's own,
readable by its owner only: setting up a second database never overwrites the first's."""

from __future__ import annotations

import io
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import connection

from grounding_app.accounts.management.commands.ensure_admin import password_file

pytestmark = pytest.mark.django_db

VAR = Path(settings.BASE_DIR) / "var"
SQLITE = "django.db.backends.sqlite3"


@pytest.fixture
def written() -> Iterator[Path]:
    path = password_file(connection.settings_dict)
    yield path
    path.unlink(missing_ok=True)


def test_the_password_goes_to_this_databases_own_file(written: Path) -> None:
    out = io.StringIO()
    call_command("ensure_admin", stdout=out)
    assert written != VAR / "admin_password"
    password = written.read_text().strip()
    assert password in out.getvalue() and str(written) in out.getvalue()
    assert stat.S_IMODE(written.stat().st_mode) == 0o600
    again = io.StringIO()
    call_command("ensure_admin", stdout=again)
    assert "An admin exists" in again.getvalue() and written.read_text().strip() == password


def test_each_database_has_its_own_file(tmp_path: Path) -> None:
    assert password_file({"ENGINE": SQLITE, "NAME": VAR / "db.sqlite3"}) == VAR / "admin_password"
    scratch = password_file({"ENGINE": SQLITE, "NAME": str(tmp_path / "other.sqlite3")})
    assert scratch == tmp_path / "other.admin_password"
    server = {"ENGINE": "django.db.backends.postgresql", "NAME": "grounding", "HOST": "db"}
    assert password_file({**server, "PORT": 5432}) == VAR / "admin_password-db-5432-grounding"
    assert password_file({**server, "NAME": "../x"}).parent == VAR
