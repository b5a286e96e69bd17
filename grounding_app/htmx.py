"""The request type of views that read htmx's headers (django-htmx's middleware sets
`request.htmx`), so the type checker knows the attribute."""

from __future__ import annotations

from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails
