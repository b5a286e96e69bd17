"""Google's JSON envelope for every error under an API version prefix, whatever failed.

The API views answer their own errors; this catches the rest. An exception escaping a
view is logged and answered 503 UNAVAILABLE when the database is locked or out of reach
(the same request may succeed when resent) or 500 INTERNAL otherwise, never with the
exception's text. Errors Django answers itself with a page (no such path, a bad Host
header, a crash in another middleware) are turned into the envelope with their status.

Pages get the same 503 when the database is locked or read-only: a short page saying to
try again in a moment (templates/503.html, rendered without the request's context, since
that would read the database again), never a bare 500.

It must wrap every middleware that can answer an error, and sit inside
SecurityMiddleware so that its answers still carry the security headers.

`RequestSizeLimitMiddleware` answers a request whose declared body is over the limit
(`limits.declared_too_large`) with 413: the envelope under an API path, else a page.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.conf import settings
from django.core.exceptions import BadRequest, PermissionDenied, SuspiciousOperation
from django.db.utils import InterfaceError, InternalError, OperationalError
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase
from django.http.multipartparser import MultiPartParserError
from django.shortcuts import render
from django.template.loader import render_to_string

from grounding_app.api import errors
from grounding_app.limits import declared_too_large

logger = logging.getLogger(__name__)

# Exceptions Django itself answers with a 4xx (django.core.handlers.exception); they are
# left to it, and their page becomes an envelope on the way out.
_CLIENT_ERRORS = (Http404, PermissionDenied, BadRequest, SuspiciousOperation, MultiPartParserError)
# What the database raises when it is locked (SQLite's busy timeout ran out), gone or
# unreachable: the request may well succeed if resent.
_UNAVAILABLE = (OperationalError, InterfaceError)
# PostgreSQL's read_only_sql_transaction (a read-only server or replica, or a transaction
# set read-only), which Django raises as an InternalError; SQLite's read-only file is an
# OperationalError already.
_READ_ONLY_SQLSTATE = "25006"


def _unavailable(exception: Exception) -> bool:
    if isinstance(exception, _UNAVAILABLE):
        return True
    cause = exception.__cause__
    return isinstance(exception, InternalError) and (
        getattr(cause, "sqlstate", None) == _READ_ONLY_SQLSTATE
    )


class ApiErrorMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        if (
            response.status_code >= 400
            and errors.is_api_path(request.path_info)
            and not response.get("Content-Type", "").startswith("application/json")
        ):
            return errors.envelope_for(response, request.path)
        return response

    def process_exception(
        self, request: HttpRequest, exception: Exception
    ) -> HttpResponseBase | None:
        if not errors.is_api_path(request.path_info):
            return _unavailable_page(request, exception)
        if isinstance(exception, _CLIENT_ERRORS):
            return None
        # request.path, never the query string: it may hold the API key (?key=).
        if _unavailable(exception):
            logger.error(
                "Database unavailable: %s %s", request.method, request.path, exc_info=exception
            )
            return errors.error_response(
                503, "The service is currently unavailable.", errors.UNAVAILABLE
            )
        logger.error("Internal error: %s %s", request.method, request.path, exc_info=exception)
        return errors.error_response(500, "Internal error encountered.", errors.INTERNAL)


RETRY_AFTER_SECONDS = 30


def _unavailable_page(request: HttpRequest, exception: Exception) -> HttpResponse | None:
    if not _unavailable(exception):
        return None
    logger.error("Database unavailable: %s %s", request.method, request.path, exc_info=exception)
    response = HttpResponse(render_to_string("503.html"), status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


class RequestSizeLimitMiddleware:
    """Refuse a request whose declared body exceeds MAX_REQUEST_BYTES, before reading it."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        if declared_too_large(request):
            return too_large(request)
        return self.get_response(request)


def too_large(request: HttpRequest) -> HttpResponse:
    limit = settings.MAX_REQUEST_BYTES
    if errors.is_api_path(request.path_info):
        return errors.error_response(
            413, f"Request payload size exceeds the limit: {limit} bytes.", errors.INVALID_ARGUMENT
        )
    return render(request, "413.html", {"limit_mib": limit // (1024 * 1024)}, status=413)
