"""Thin HTTP views: authenticate, decode, hand the request to the engine, encode.

Every error is answered in Google's JSON envelope (see `errors`), never as an HTML page,
so the official clients raise the exception a developer expects.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt

from grounding_app import engine
from grounding_app.api import errors
from grounding_app.api.errors import error_response
from grounding_app.api.models import ApiKey
from grounding_app.formats.check_grounding import (
    FormatError,
    decode_json_body,
    parse_check_request,
    response_to_json,
)
from grounding_app.limits import api_limit

logger = logging.getLogger(__name__)


def _raw_key(request: HttpRequest) -> str:
    """The key as Google APIs accept it: x-goog-api-key, a Bearer token or ?key=.

    ?key= stays because Google's REST examples use it; no log line of ours or Django's
    holds the query string, and gunicorn.conf.py logs the path without it.
    """
    header = request.headers.get("x-goog-api-key", "").strip()
    if header:
        return header
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return token.strip()
    return request.GET.get("key", "")


@csrf_exempt
def check_grounding(request: HttpRequest, project: str, location: str, config: str) -> JsonResponse:
    """POST .../groundingConfigs/{config}:check (SPEC §1)."""
    if request.method != "POST":
        response = error_response(
            405, f"Method {request.method} is not allowed here; use POST.", errors.UNIMPLEMENTED
        )
        response["Allow"] = "POST"
        return response
    raw_key = _raw_key(request)
    if not raw_key:
        return error_response(
            401,
            "Missing API key: send it in the x-goog-api-key header.",
            errors.UNAUTHENTICATED,
        )
    api_key = ApiKey.authenticate(raw_key)
    if api_key is None:
        return error_response(
            401, "API key not valid. Please pass a valid API key.", errors.UNAUTHENTICATED
        )
    limit = api_limit()
    if limit.exceeded(limit.hit(api_key.key_hash)):
        response = error_response(
            429,
            f"Quota exceeded: at most {limit.limit} requests per {limit.window} seconds"
            " per API key.",
            errors.RESOURCE_EXHAUSTED,
        )
        response["Retry-After"] = str(limit.retry_after())
        return response
    try:
        # Django compares the declared Content-Length with DATA_UPLOAD_MAX_MEMORY_SIZE
        # and raises before reading a byte, so an oversized body is never buffered.
        body = request.body
    except RequestDataTooBig:
        max_bytes = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        return error_response(
            413,
            f"Request payload size exceeds the limit: {max_bytes} bytes.",
            errors.INVALID_ARGUMENT,
        )
    try:
        check_request = parse_check_request(decode_json_body(body))
    except FormatError as exc:
        return error_response(400, str(exc), errors.INVALID_ARGUMENT)
    try:
        result = engine.check(check_request)
    except Exception:
        logger.exception("grounding check failed")
        return error_response(500, "Internal error while checking grounding.", errors.INTERNAL)
    return JsonResponse(response_to_json(result, check_request))


def healthz(request: HttpRequest) -> JsonResponse:
    """Liveness: the process answers; says nothing about the engine."""
    return JsonResponse({"status": "ok"})


def readyz(request: HttpRequest) -> JsonResponse:
    """Readiness: 503 until the engine has loaded; the first probe starts the load."""
    engine.warm_up_in_background()
    if engine.is_ready():
        return JsonResponse({"status": "ready"})
    return error_response(503, "The grounding engine is still loading.", errors.UNAVAILABLE)


@csrf_exempt
def not_found(request: HttpRequest) -> JsonResponse:
    """Any other path under an API version prefix, with any method."""
    return errors.not_found(request.path)
