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
