"""Project URL map: the JSON API, health probes, the admin, sign-in and the review pages."""

from __future__ import annotations

from django.contrib import admin
from django.urls import include, path
from django.views.generic import RedirectView

from grounding_app.accounts.roles import public

urlpatterns = [
    path("", include("grounding_app.api.urls")),
    path("admin/", admin.site.urls),
    path("accounts/", include("grounding_app.accounts.urls")),
    path("reviews/", include("grounding_app.reviews.urls")),
    path("", public(RedirectView.as_view(pattern_name="reviews:list")), name="home"),
]
