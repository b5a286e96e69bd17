"""Google's JSON error envelope, so official clients raise the matching exception.

google.api_core picks the exception class from the HTTP status alone (400 BadRequest,
401 Unauthorized, 403 Forbidden, 404 NotFound, 405 MethodNotAllowed, 429
TooManyRequests, 500 InternalServerError, 503 ServiceUnavailable); `status` is the
google.rpc.Code name that goes with it. 413 has no class of its own (the client raises
GoogleAPICallError with code 413) and no google.rpc.Code: INVALID_ARGUMENT is used, as
Google does for an oversized payload, because resending the same request cannot help.
405 (MethodNotAllowed) likewise has no code; UNIMPLEMENTED ("not supported by this
service") is the nearest.

Every path under an API version prefix (`/v1`, `/V1/`, `/v1beta/`, `/v2alpha1/`, ...)
is answered in the envelope, whatever fails: clients that get a version wrong must
still get an error they can read.
"""

from __future__ import annotations

import re

from django.http import HttpResponseBase, JsonResponse

INVALID_ARGUMENT = "INVALID_ARGUMENT"
UNAUTHENTICATED = "UNAUTHENTICATED"
PERMISSION_DENIED = "PERMISSION_DENIED"
NOT_FOUND = "NOT_FOUND"
UNIMPLEMENTED = "UNIMPLEMENTED"
RESOURCE_EXHAUSTED = "RESOURCE_EXHAUSTED"
INTERNAL = "INTERNAL"
UNAVAILABLE = "UNAVAILABLE"

# Google's version segments, any case; [0-9], not \d, which takes every script's digits.
API_VERSION = r"v[0-9]+(?:(?:alpha|beta)[0-9]*)?"
_API_PATH = re.compile(rf"/{API_VERSION}(?:/|$)", re.IGNORECASE)
_STATUS_BY_CODE = {
    400: INVALID_ARGUMENT,
    401: UNAUTHENTICATED,
    403: PERMISSION_DENIED,
    404: NOT_FOUND,
    405: UNIMPLEMENTED,
    413: INVALID_ARGUMENT,
    429: RESOURCE_EXHAUSTED,
    500: INTERNAL,
    503: UNAVAILABLE,
}


def error_response(code: int, message: str, status: str) -> JsonResponse:
    return JsonResponse(
        {"error": {"code": code, "message": message, "status": status}}, status=code
    )


def is_api_path(path: str) -> bool:
    """Whether `path` (a request's path_info) is answered in the envelope."""
    return _API_PATH.match(path) is not None


def not_found(path: str) -> JsonResponse:
    return error_response(404, f"The requested URL {path} was not found on this server.", NOT_FOUND)


def envelope_for(response: HttpResponseBase, path: str) -> JsonResponse:
    """The envelope for an error Django answered as a page (a 404, a 400 for a bad Host,
    a 500 after a crash in middleware), with the same status."""
    code = response.status_code
    if code == 404:
        return not_found(path)
    status = _STATUS_BY_CODE.get(code, INVALID_ARGUMENT if code < 500 else INTERNAL)
    return error_response(code, f"{response.reason_phrase}.", status)
