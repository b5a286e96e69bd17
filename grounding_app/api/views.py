"""Thin HTTP views: authenticate, decode, hand the request to the engine, encode.

Every error is answered in Google's JSON envelope (see `errors`), never as an HTML page,
so the official clients raise the exception a developer expects.
"""

from __future__ import annotations

import logging
import uuid

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.db import DatabaseError, connection, transaction
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt

from grounding_app.active_verifier.checker import checker
from grounding_app.api import errors
from grounding_app.api.auth import authenticate
from grounding_app.api.errors import error_response
from grounding_app.api.models import ApiKey
from grounding_app.calibration.models import Scope
from grounding_app.counters.models import SharedCounter
from grounding_app.formats.check_grounding import (
    FormatError,
    decode_json_body,
    parse_check_request,
    response_to_json,
)

logger = logging.getLogger(__name__)

# The LLM judge's work for one check request (docs/llm-judge.md): a header, so the body
# stays exactly what clients of the check-grounding API parse.
LLM_JUDGE_HEADER = "LLM-Judge-Usage"


@csrf_exempt
def check_grounding(request: HttpRequest, project: str, location: str, config: str) -> JsonResponse:
    """POST .../groundingConfigs/{config}:check (SPEC §1)."""
    if request.method != "POST":
        response = error_response(
            405, f"Method {request.method} is not allowed here; use POST.", errors.UNIMPLEMENTED
        )
        response["Allow"] = "POST"
        return response
    api_key = authenticate(request)
    if not isinstance(api_key, ApiKey):
        return api_key
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
    try:  # with the verifier chosen on the Verifier page, in every worker
        checked = checker().check(check_request, (Scope.CONFIG, config))
    except Exception:
        logger.exception("grounding check failed")
        return error_response(500, "Internal error while checking grounding.", errors.INTERNAL)
    data = response_to_json(checked.response)
    # Our extension, beside the claims' `checkedBy`: which verifier judged (name and
    # weights' hash), so a verdict can be traced to the model that gave it.
    if checked.verifier is not None:
        data["verifier"] = checked.verifier
    response = JsonResponse(data)
    usage = checked.llm_judge
    if usage.claims:  # what the LLM judge did for this request, beside the body
        response[LLM_JUDGE_HEADER] = (
            f"claims={usage.claims}, calls={usage.calls}, failed={usage.failures},"
            f" tokens={usage.tokens}, seconds={usage.seconds:.3f}"
        )
    return response


def healthz(request: HttpRequest) -> JsonResponse:
    """Liveness: the process answers; says nothing about the engine."""
    return JsonResponse({"status": "ok"})


def readyz(request: HttpRequest) -> JsonResponse:
    """Readiness: 503 until the engine has loaded (the first probe starts the load), and
    while the database cannot be written, which reads alone would never notice."""
    checker().warm_up_in_background()
    if not checker().is_ready():
        return error_response(503, "The grounding engine is still loading.", errors.UNAVAILABLE)
    if not database_writable():
        return error_response(503, "The database cannot be written to.", errors.UNAVAILABLE)
    return JsonResponse({"status": "ready"})


def metrics(request: HttpRequest) -> HttpResponse:
    """This process's counters in Prometheus' text format: the cache of fact encodings
    (each worker process has its own; zeros until the engine has loaded)."""
    counts = checker().fact_cache_counts()
    hits, misses, size = (counts.hits, counts.misses, counts.size) if counts else (0, 0, 0)
    lines = [
        "# HELP grounding_fact_encoding_cache_hits_total Fact passages whose encoding was kept.",
        "# TYPE grounding_fact_encoding_cache_hits_total counter",
        f"grounding_fact_encoding_cache_hits_total {hits}",
        "# HELP grounding_fact_encoding_cache_misses_total Fact passages encoded anew.",
        "# TYPE grounding_fact_encoding_cache_misses_total counter",
        f"grounding_fact_encoding_cache_misses_total {misses}",
        "# HELP grounding_fact_encoding_cache_entries Encodings kept now.",
        "# TYPE grounding_fact_encoding_cache_entries gauge",
        f"grounding_fact_encoding_cache_entries {size}",
    ]
    return HttpResponse(
        "\n".join(lines) + "\n", content_type="text/plain; version=0.0.4; charset=utf-8"
    )


class _RolledBack(Exception):
    pass


PROBE_BUSY_MS = 2000  # a probe waits this long for SQLite's write lock, not 20 s


def database_writable() -> bool:
    """Insert a row and roll it back: a read-only file or server refuses the insert, a
    lock held longer than PROBE_BUSY_MS fails it; nothing is left behind."""
    sqlite = connection.vendor == "sqlite"
    try:
        if sqlite:
            with connection.cursor() as cursor:
                cursor.execute(f"PRAGMA busy_timeout = {PROBE_BUSY_MS}")
        with transaction.atomic():
            SharedCounter.objects.create(
                key=f"readyz:{uuid.uuid4().hex}", count=0, expires=timezone.now()
            )
            raise _RolledBack
    except _RolledBack:
        return True
    except DatabaseError:
        logger.warning("readiness: the database cannot be written to", exc_info=True)
        return False
    finally:
        if sqlite:
            busy_ms = int(connection.settings_dict["OPTIONS"].get("timeout", 5) * 1000)
            with connection.cursor() as cursor:
                cursor.execute(f"PRAGMA busy_timeout = {busy_ms}")


@csrf_exempt
def not_found(request: HttpRequest) -> JsonResponse:
    """Any other path under an API version prefix, with any method."""
    return errors.not_found(request.path)
