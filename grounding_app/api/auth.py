"""Who is calling the JSON API: the key, checked and counted against its rate limit.

One function for every /v1 endpoint (grounding checks, batch jobs), so they accept keys
the same ways and answer a missing, wrong or exhausted key with the same envelope.
"""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse

from grounding_app.api import errors
from grounding_app.api.errors import error_response
from grounding_app.api.models import ApiKey
from grounding_app.limits import api_limit


def raw_key(request: HttpRequest) -> str:
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


def authenticate(request: HttpRequest) -> ApiKey | JsonResponse:
    """The caller's key, or the 401/429 response to send instead."""
    raw = raw_key(request)
    if not raw:
        return error_response(
            401,
            "Missing API key: send it in the x-goog-api-key header.",
            errors.UNAUTHENTICATED,
        )
    api_key = ApiKey.authenticate(raw)
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
    return api_key
