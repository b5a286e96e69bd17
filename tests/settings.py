"""Test settings: the project settings with a throwaway key and debug off.

The test database gets a name of its own per run, so runs beside each other (here or on
a shared PostgreSQL server) never meet; on SQLite it is a file, as in production, so
WAL, the busy timeout and secure_delete are what the tests exercise.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

os.environ.setdefault("SECRET_KEY", "test-secret-key-not-for-production")

from grounding_app.settings import *  # noqa: F403
from grounding_app.settings import CACHES, DATABASES, STORAGES

# PBKDF2's million rounds cost about a second per test user; tests need no real hashing.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

_RUN = f"{os.getpid()}"
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"]["TEST"] = {
        "NAME": str(Path(tempfile.gettempdir()) / f"grounding-test-{_RUN}.sqlite3")
    }
else:
    DATABASES["default"]["TEST"] = {"NAME": f"test_grounding_{_RUN}"}

# Rate-limit counters of one run must not meet another's in a shared Redis. Every test
# signs in from 127.0.0.1, so sign-in failures are not limited unless a test says so.
for _cache in CACHES.values():
    _cache["KEY_PREFIX"] = f"test-{_RUN}"
LOGIN_RATE_LIMIT = 0

# The test client and the live server speak plain http.
SECURE_SSL_REDIRECT = False

# The suite renders pages without a collectstatic run, so templates link the plain names
# (and WhiteNoise gets an empty root); tests/browser/test_production.py runs the real
# hashed, compressed storage behind gunicorn.
STATIC_ROOT = Path(tempfile.gettempdir()) / "grounding-test-static"
STATIC_ROOT.mkdir(exist_ok=True)
STORAGES = {
    **STORAGES,
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
