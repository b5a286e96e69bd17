"""OTLP's 413 for an export whose declared body is over the request limit.

`api.middleware.RequestSizeLimitMiddleware` answers such a request with a page or
Google's JSON envelope; an OTLP exporter reads neither, it expects a google.rpc.Status
in its own encoding. This one sits just before it and answers /otlp/ paths itself.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponseBase

from grounding_app.limits import declared_too_large
from grounding_app.traces.responses import OTLP_PREFIX, otlp_error


class OtlpSizeLimitMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        if request.path_info.startswith(OTLP_PREFIX) and declared_too_large(request):
            return otlp_error(
                request,
                413,
                f"The export is over the limit of {settings.MAX_REQUEST_BYTES:,} bytes;"
                " send smaller batches.",
            )
        return self.get_response(request)
