"""Project URL map: the JSON API, health probes, the admin, sign-in and the review pages."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.contrib import admin
from django.http import FileResponse, HttpRequest
from django.urls import include, path
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_GET

from grounding_app.accounts.roles import public
from grounding_app.accounts.views import home

FAVICON = Path(settings.BASE_DIR) / "static" / "img" / "favicon.svg"


@public
@require_GET
@cache_control(public=True, max_age=86400)
def favicon(request: HttpRequest) -> FileResponse:
    """The icon the pages link, also where browsers look without a link (else a 404 in
    every log)."""
    return FileResponse(FAVICON.open("rb"), content_type="image/svg+xml")


urlpatterns = [
    path("favicon.ico", favicon, name="favicon"),
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
    path("monitoring/", include("grounding_app.monitoring.urls")),
    path("", public(home), name="home"),
]
