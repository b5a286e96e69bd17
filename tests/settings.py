"""Test settings: the project settings with a throwaway key and debug off."""

from __future__ import annotations

import os

os.environ.setdefault("SECRET_KEY", "test-secret-key-not-for-production")

from grounding_app.settings import *  # noqa: F403

# PBKDF2's million rounds cost about a second per test user; tests need no real hashing.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
