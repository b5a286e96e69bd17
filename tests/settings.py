"""Test settings: the project settings with a throwaway key and debug off."""

from __future__ import annotations

import os

os.environ.setdefault("SECRET_KEY", "test-secret-key-not-for-production")

from grounding_app.settings import *  # noqa: E402,F403
