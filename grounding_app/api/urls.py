"""Routes of the JSON API. The method name follows a ':' as in Google's REST paths."""

from __future__ import annotations

from django.urls import path, re_path

from grounding_app.api import views

urlpatterns = [
    re_path(
        r"^v1/projects/(?P<project>[^/]+)/locations/(?P<location>[^/]+)"
        r"/groundingConfigs/(?P<config>[^/:]+):check$",
        views.check_grounding,
        name="check_grounding",
    ),
    re_path(r"^v1/", views.not_found),
    path("healthz", views.healthz, name="healthz"),
    path("readyz", views.readyz, name="readyz"),
]
