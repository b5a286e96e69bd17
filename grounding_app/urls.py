"""Project URL map: the JSON API, health probes, the admin, sign-in and the review pages."""

from __future__ import annotations

from django.contrib import admin
from django.urls import include, path

from grounding_app.accounts.roles import public
from grounding_app.accounts.views import home

urlpatterns = [
    path("", include("grounding_app.api.urls")),
    path("admin/", admin.site.urls),
    path("accounts/", include("grounding_app.accounts.urls")),
    path("reviews/", include("grounding_app.reviews.urls")),
    path("annotations/", include("grounding_app.annotations.urls")),
    path("", public(home), name="home"),
]
