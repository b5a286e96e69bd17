"""The project's routes plus one view that fails, to see the 500 page's headers."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.urls import path

from grounding_app.accounts.roles import public
from grounding_app.urls import urlpatterns as project_urlpatterns


@public
def boom(request: HttpRequest) -> HttpResponse:
    raise RuntimeError("a bug")


urlpatterns = [path("boom/", boom), *project_urlpatterns]
