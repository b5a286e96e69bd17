"""Project URL map: the JSON API, health probes, the admin, sign-in and the review pages."""

from __future__ import annotations

from django.contrib import admin
from django.urls import include, path

from grounding_app.accounts.roles import public
from grounding_app.accounts.views import home

urlpatterns = [
    # Before the API's catch-all, which answers every other /v1/ path with a 404.
    path("", include("grounding_app.batch.api_urls")),
    path("", include("grounding_app.api.urls")),
    # OTLP/HTTP under /otlp, not /v1: that prefix is the Google-style API's (docs/traces.md).
    path("otlp/", include("grounding_app.traces.otlp_urls")),
    path("traces/", include("grounding_app.traces.urls")),
    path("admin/", admin.site.urls),
    path("accounts/", include("grounding_app.accounts.urls")),
    path("reviews/", include("grounding_app.reviews.urls")),
    path("annotations/", include("grounding_app.annotations.urls")),
    path("policies/", include("grounding_app.policies.urls")),
    path("batch/", include("grounding_app.batch.urls")),
    path("verifiers/", include("grounding_app.verifiers.urls")),
    path("", public(home), name="home"),
]
