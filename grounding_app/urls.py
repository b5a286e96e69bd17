"""Project URL map: the JSON API, health probes and the admin."""

from __future__ import annotations

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("", include("grounding_app.api.urls")),
    path("admin/", admin.site.urls),
]
