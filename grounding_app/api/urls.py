"""Routes of the JSON API. The method name follows a ':' as in Google's REST paths."""

from __future__ import annotations

from django.urls import path, re_path

from grounding_app.api import views
from grounding_app.api.errors import API_VERSION

urlpatterns = [
    re_path(
        r"^v1/projects/(?P<project>[^/]+)/locations/(?P<location>[^/]+)"
        r"/groundingConfigs/(?P<config>[^/:]+):check$",
        views.check_grounding,
        name="check_grounding",
    ),
    # Every other path under a version prefix, "/v1" itself too: as a route it is never
    # redirected to "/v1/" (APPEND_SLASH). Other spellings ("/V1/") resolve nowhere, so
    # they are not redirected either; ApiErrorMiddleware answers their 404.
    re_path(rf"^{API_VERSION}(?:/|$)", views.not_found),
    path("healthz", views.healthz, name="healthz"),
    path("readyz", views.readyz, name="readyz"),
    path("metrics", views.metrics, name="metrics"),
]
