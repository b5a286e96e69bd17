"""WSGI entry point (gunicorn grounding_app.wsgi)."""

from __future__ import annotations

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "grounding_app.settings")

application = get_wsgi_application()
