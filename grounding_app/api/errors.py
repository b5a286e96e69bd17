"""Google's JSON error envelope, so official clients raise the matching exception.

google.api_core picks the exception class from the HTTP status alone (400 BadRequest,
401 Unauthorized, 403 Forbidden, 404 NotFound, 405 MethodNotAllowed, 429
TooManyRequests, 500 InternalServerError, 503 ServiceUnavailable); `status` is the
google.rpc.Code name that goes with it. 413 has no class of its own (the client raises
GoogleAPICallError with code 413) and no google.rpc.Code: INVALID_ARGUMENT is used, as
Google does for an oversized payload, because resending the same request cannot help.
405 (MethodNotAllowed) likewise has no code; UNIMPLEMENTED ("not supported by this
service") is the nearest.
"""

from __future__ import annotations

from django.http import JsonResponse

INVALID_ARGUMENT = "INVALID_ARGUMENT"
UNAUTHENTICATED = "UNAUTHENTICATED"
PERMISSION_DENIED = "PERMISSION_DENIED"
NOT_FOUND = "NOT_FOUND"
UNIMPLEMENTED = "UNIMPLEMENTED"
RESOURCE_EXHAUSTED = "RESOURCE_EXHAUSTED"
INTERNAL = "INTERNAL"
UNAVAILABLE = "UNAVAILABLE"


def error_response(code: int, message: str, status: str) -> JsonResponse:
    return JsonResponse(
        {"error": {"code": code, "message": message, "status": status}}, status=code
    )
