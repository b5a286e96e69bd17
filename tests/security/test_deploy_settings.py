"""Production defaults are strict and still let DJANGO_DEBUG=1 (scripts/run) work over
http; every new setting comes from the environment and is checked."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROBE = (
    "import json; from grounding_app import settings as s; print(json.dumps({k: getattr(s, k)"
    " for k in ('SECURE_SSL_REDIRECT', 'SECURE_HSTS_SECONDS', 'SECURE_HSTS_INCLUDE_SUBDOMAINS',"
    " 'SECURE_HSTS_PRELOAD', 'SECURE_PROXY_SSL_HEADER', 'SESSION_COOKIE_SECURE',"
    " 'CSRF_COOKIE_SECURE', 'CSRF_COOKIE_HTTPONLY', 'RETENTION_DAYS', 'API_RATE_LIMIT',"
    " 'LOGIN_RATE_LIMIT', 'MAX_REQUEST_BYTES')} | {'cache': s.CACHES['default']['BACKEND'],"
    " 'init': s.DATABASES['default'].get('OPTIONS', {}).get('init_command', '')}))"
)
SECRET = "k" * 20 + "-production-secret-0123456789-abcdefghijklmnop"


def load(**env: str) -> subprocess.CompletedProcess[str]:
    clean = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("SECURE_", "RETENTION_", "API_RATE", "LOGIN_RATE"))
        and k not in {"SECRET_KEY", "DJANGO_DEBUG", "DATABASE_URL", "REDIS_URL"}
    }
    return subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_production_defaults_are_strict() -> None:
    result = load(SECRET_KEY=SECRET)
    values = json.loads(result.stdout)
    assert values["SECURE_SSL_REDIRECT"] is True
    assert values["SECURE_HSTS_SECONDS"] == 31_536_000
    assert values["SECURE_HSTS_INCLUDE_SUBDOMAINS"] and values["SECURE_HSTS_PRELOAD"]
    assert values["SECURE_PROXY_SSL_HEADER"] is None
    assert values["SESSION_COOKIE_SECURE"] and values["CSRF_COOKIE_SECURE"]
    assert values["CSRF_COOKIE_HTTPONLY"]
    assert values["RETENTION_DAYS"] == 30
    assert values["cache"].endswith("LocMemCache")
    assert "PRAGMA secure_delete=ON" in values["init"]


def test_debug_keeps_plain_http_working() -> None:
    values = json.loads(load(DJANGO_DEBUG="1").stdout)
    assert values["SECURE_SSL_REDIRECT"] is False
    assert values["SECURE_HSTS_SECONDS"] == 0
    assert not values["SESSION_COOKIE_SECURE"] and not values["CSRF_COOKIE_SECURE"]


def test_everything_is_configurable() -> None:
    values = json.loads(
        load(
            SECRET_KEY=SECRET,
            SECURE_SSL_REDIRECT="0",
            SECURE_HSTS_SECONDS="60",
            SECURE_PROXY_SSL_HEADER="HTTP_X_FORWARDED_PROTO,https",
            RETENTION_DAYS="7",
            API_RATE_LIMIT="5",
            LOGIN_RATE_LIMIT="3",
            MAX_REQUEST_BYTES="1000",
            REDIS_URL="redis://127.0.0.1:6379",
        ).stdout
    )
    assert values["SECURE_SSL_REDIRECT"] is False and values["SECURE_HSTS_SECONDS"] == 60
    assert values["SECURE_PROXY_SSL_HEADER"] == ["HTTP_X_FORWARDED_PROTO", "https"]
    assert (values["RETENTION_DAYS"], values["API_RATE_LIMIT"]) == (7, 5)
    assert (values["LOGIN_RATE_LIMIT"], values["MAX_REQUEST_BYTES"]) == (3, 1000)
    assert values["cache"] == "django.core.cache.backends.redis.RedisCache"


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("RETENTION_DAYS", "0", "RETENTION_DAYS must be at least 1"),
        ("SECURE_PROXY_SSL_HEADER", "HTTP_X_FORWARDED_PROTO", "must be HEADER,VALUE"),
        ("API_RATE_LIMIT", "many", "API_RATE_LIMIT must be an integer"),
    ],
)
def test_bad_values_are_refused_loudly(name: str, value: str, message: str) -> None:
    result = load(SECRET_KEY=SECRET, **{name: value})
    assert result.returncode != 0 and message in result.stderr
