"""Settings come from the environment with safe defaults; a missing key fails loudly."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PROBE = (
    "import json; from grounding_app import settings as s; "
    "print(json.dumps({'engine': s.DATABASES['default']['ENGINE'], 'debug': s.DEBUG, "
    "'hosts': s.ALLOWED_HOSTS, 'name': str(s.DATABASES['default']['NAME'])}))"
)


def load(**env: str) -> subprocess.CompletedProcess[str]:
    clean = {
        k: v
        for k, v in os.environ.items()
        if k not in {"SECRET_KEY", "DJANGO_DEBUG", "DATABASE_URL", "ALLOWED_HOSTS"}
    }
    return subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_secret_key_is_required_outside_debug():
    result = load()
    assert result.returncode != 0
    assert "SECRET_KEY is required unless DJANGO_DEBUG=1" in result.stderr


def test_debug_runs_without_a_key_on_sqlite():
    result = load(DJANGO_DEBUG="1")
    data = json.loads(result.stdout)
    assert data["engine"] == "django.db.backends.sqlite3" and data["debug"] is True
    assert data["name"].endswith("var/db.sqlite3")
    assert data["hosts"] == ["127.0.0.1", "localhost"]


def test_postgres_and_hosts_from_the_environment():
    result = load(
        SECRET_KEY="k",
        DATABASE_URL="postgres://user@127.0.0.1:5432/grounding",
        ALLOWED_HOSTS="example.org, api.example.org",
    )
    data = json.loads(result.stdout)
    assert data["engine"] == "django.db.backends.postgresql" and data["debug"] is False
    assert data["hosts"] == ["example.org", "api.example.org"]


@pytest.mark.parametrize("value", ["maybe", "2"])
def test_a_bad_boolean_is_refused(value):
    result = load(DJANGO_DEBUG=value)
    assert result.returncode != 0 and "DJANGO_DEBUG must be a boolean" in result.stderr


def test_the_database_and_the_broker_are_readable_by_their_owner_only(tmp_path: Path) -> None:
    database, broker = tmp_path / "db.sqlite3", tmp_path / "broker.sqlite3"
    broker.touch(mode=0o644)
    broker.chmod(0o644)  # made before, world-readable: put right at start
    result = load(
        DJANGO_DEBUG="1",
        DATABASE_URL=f"sqlite:///{database}",
        CELERY_BROKER_URL=f"sqla+sqlite:///{broker}",
    )
    assert result.returncode == 0, result.stderr
    assert stat.S_IMODE(database.stat().st_mode) == 0o600
    assert stat.S_IMODE(broker.stat().st_mode) == 0o600
    with sqlite3.connect(database) as db:  # SQLite gives its WAL the database's mode
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("CREATE TABLE t (x)")
        assert stat.S_IMODE((tmp_path / "db.sqlite3-wal").stat().st_mode) == 0o600


# Without the lab beside it (an install of grounding_app alone): the app's settings load
# and Django's checks pass, with no lab app installed. `ROOT` is left off the path and
# the editable install's finder is dropped, so only a link to grounding_app is found.
WITHOUT_LAB = """
import os, sys
root, alone = sys.argv[1], sys.argv[2]
sys.meta_path[:] = [f for f in sys.meta_path if "__editable__" not in repr(f)]
sys.path[:] = [alone] + [p for p in sys.path if p not in ("", root) and os.path.isdir(p)]
import django
django.setup()
from django.conf import settings
from django.core.management import call_command
call_command("check")
print([app for app in settings.INSTALLED_APPS if app.startswith("grounding_lab")])
"""


@pytest.mark.parametrize("lab", [True, False], ids=["with the lab", "without it"])
def test_the_app_runs_without_the_lab_and_lists_it_when_present(tmp_path: Path, lab: bool) -> None:
    root = Path(__file__).resolve().parents[1]
    (tmp_path / "grounding_app").symlink_to(root / "grounding_app")
    if lab:
        (tmp_path / "grounding_lab").symlink_to(root / "grounding_lab")
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "grounding_app.settings", "DJANGO_DEBUG": "1"}
    env.pop("PYTHONPATH", None)
    result = subprocess.run(
        [sys.executable, "-c", WITHOUT_LAB, str(root), str(tmp_path)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == ("['grounding_lab']" if lab else "[]")
