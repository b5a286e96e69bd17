"""OTLP/HTTP responses as Django responses, in the encoding of the request."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse

from grounding_app.traces import otlp

OTLP_PREFIX = "/otlp/"


def encoding(request: HttpRequest) -> str:
    """The request's OTLP encoding; protobuf (OTLP's default) when it names none."""
    return otlp.encoding_of(request.headers.get("Content-Type", "")) or otlp.PROTOBUF


def otlp_error(
    request: HttpRequest, status: int, message: str, retry_after: int | None = None
) -> HttpResponse:
    kind = encoding(request)
    response = HttpResponse(otlp.status_response(kind, status, message), status=status)
    response["Content-Type"] = kind
    if retry_after is not None:
        response["Retry-After"] = str(retry_after)
    return response


def otlp_success(request: HttpRequest, rejected: int = 0, message: str = "") -> HttpResponse:
    kind = encoding(request)
    response = HttpResponse(otlp.export_response(kind, rejected, message))
    response["Content-Type"] = kind
    return response
