"""Settings come from the environment with safe defaults; a missing key fails loudly."""

from __future__ import annotations

import json
import os
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
