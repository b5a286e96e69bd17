"""Batch jobs over the JSON API, with the check endpoint's conventions: an API key
(x-goog-api-key, Bearer or ?key=), the rate limit, Google's error envelope and the
payload limit. A key sees only the jobs it created.

    POST /v1/batchJobs?citationThreshold=0.6&sourcePolicy=NAME&requestId=ID   body: JSONL
                                                            -> the job
    GET  /v1/batchJobs/{id}                                 -> the job and its progress
    POST /v1/batchJobs/{id}:cancel                          -> the job
    GET  /v1/batchJobs/{id}/results                         -> JSONL, one line per line
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.db import IntegrityError, transaction
from django.http import HttpRequest, HttpResponseBase, JsonResponse, StreamingHttpResponse
from django.views.decorators.csrf import csrf_exempt

from grounding_app.api import errors
from grounding_app.api.auth import authenticate
from grounding_app.api.errors import error_response
from grounding_app.api.models import ApiKey
from grounding_app.batch import exports, intake, queueing, running
from grounding_app.batch import results as job_results
from grounding_app.batch.lines import record_count
from grounding_app.batch.models import BatchJob
from grounding_app.engine import DEFAULT_CITATION_THRESHOLD
from grounding_app.policies.models import SourcePolicy

ApiView = Callable[..., HttpResponseBase]


def _authenticated(method: str) -> Callable[[ApiView], ApiView]:
    """Allow one method, then require a valid key within its rate limit."""

    def decorator(view: ApiView) -> ApiView:
        @csrf_exempt
        @wraps(view)
        def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
            if request.method != method:
                response = error_response(
                    405,
                    f"Method {request.method} is not allowed here; use {method}.",
                    errors.UNIMPLEMENTED,
                )
                response["Allow"] = method
                return response
            api_key = authenticate(request)
            if not isinstance(api_key, ApiKey):
                return api_key
            return view(request, api_key, *args, **kwargs)

        return wrapped

    return decorator


def job_json(job: BatchJob) -> dict[str, Any]:
    progress = job_results.progress(job)
    data: dict[str, Any] = {
        "name": f"batchJobs/{job.public_id}",
        "state": job.status.upper(),
        "citationThreshold": job.citation_threshold,
        "createTime": job.created_at.isoformat().replace("+00:00", "Z"),
        "totalLines": progress.total,
        "doneLines": progress.done,
        "failedLines": progress.failed,
        "pendingLines": progress.pending,
    }
    if job.source_policy is not None:
        data["sourcePolicy"] = job.source_policy.name
    if job.verifier:  # the verifier of its first checked line; each result line names its own
        data["verifier"] = job.verifier
    if job.llm_judge_claims:  # what the LLM judge did for the job's lines so far
        data["llmJudge"] = {
            "claims": job.llm_judge_claims,
            "calls": job.llm_judge_calls,
            "failedCalls": job.llm_judge_failures,
            "tokens": job.llm_judge_tokens,
            "seconds": round(job.llm_judge_seconds, 3),
        }
    if progress.rate is not None:
        data["linesPerSecond"] = round(progress.rate, 3)
    if progress.eta_seconds is not None:
        data["etaSeconds"] = round(progress.eta_seconds, 1)
    problems = job_results.failed_lines(job, limit=100)
    if problems:
        data["lineErrors"] = [{"line": line.number, "message": line.error} for line in problems]
    return data


def _own_job(api_key: ApiKey, public_id: str) -> BatchJob | None:
    return BatchJob.objects.filter(public_id=public_id, api_key=api_key).first()


def _not_found(public_id: str) -> JsonResponse:
    return error_response(404, f"Batch job {public_id} was not found.", errors.NOT_FOUND)


def _threshold(raw: str) -> float | None:
    try:
        value = float(raw) if raw.isascii() else math.nan
    except ValueError:
        return None
    return value if 0.0 <= value <= 1.0 else None


def _over_waiting_limit(api_key: ApiKey, body: bytes) -> JsonResponse | None:
    """429 when this upload would leave the key more lines waiting than
    BATCH_KEY_WAITING_LINES: the request limit counts requests, and one request may
    queue 100,000 lines.

    Called in the transaction that stores the job: the key's row is locked first, so
    uploads of one key count and store one after another (three 60,000-line uploads at
    once left 120,000 waiting). PostgreSQL holds the row lock to the commit; SQLite's
    transactions take the database's write lock at BEGIN (IMMEDIATE, settings.py)."""
    limit = settings.BATCH_KEY_WAITING_LINES
    if not limit:
        return None
    ApiKey.objects.select_for_update().filter(pk=api_key.pk).exists()
    waiting = queueing.waiting_lines(api_key=api_key)
    lines = record_count(body)  # a JSON array or a CSV counts records, not lines
    if waiting + lines <= limit:
        return None
    response = error_response(
        429,
        f"Quota exceeded: this API key has {waiting:,} lines waiting in its active batch jobs"
        f" and this job adds {lines:,}; at most {limit:,} may wait. Wait for a job to"
        " finish or cancel one.",
        errors.RESOURCE_EXHAUSTED,
    )
    response["Retry-After"] = "60"
    return response


@_authenticated("POST")
def create(request: HttpRequest, api_key: ApiKey) -> HttpResponseBase:
    raw = request.GET.get("citationThreshold", str(DEFAULT_CITATION_THRESHOLD))
    threshold = _threshold(raw)
    if threshold is None:
        return error_response(
            400, "citationThreshold must be a number in [0, 1].", errors.INVALID_ARGUMENT
        )
    try:
        body = request.body
    except RequestDataTooBig:
        return error_response(
            413,
            "Request payload size exceeds the limit: "
            f"{settings.DATA_UPLOAD_MAX_MEMORY_SIZE} bytes.",
            errors.INVALID_ARGUMENT,
        )
    policy = None
    if name := request.GET.get("sourcePolicy", ""):
        # PostgreSQL refuses a NUL in a query parameter; no policy name holds one.
        policy = None if "\x00" in name else SourcePolicy.objects.filter(name=name).first()
        if policy is None:
            return error_response(
                400, f"sourcePolicy: no source policy is named {name!r}.", errors.INVALID_ARGUMENT
            )
    request_id = request.GET.get("requestId", "") or request.headers.get("Idempotency-Key", "")
    if request_id:
        if not REQUEST_ID.fullmatch(request_id):
            return error_response(
                400,
                "requestId must be 1 to 100 letters, digits, '-', '_' or '.'.",
                errors.INVALID_ARGUMENT,
            )
        if earlier := _own_request(api_key, request_id):
            return JsonResponse(job_json(earlier))
    try:
        with transaction.atomic():
            if refusal := _over_waiting_limit(api_key, body):
                return refusal
            job = intake.receive_job(
                body, citation_threshold=threshold, source_policy=policy, api_key=api_key
            )
            if request_id:  # in the job's transaction: a concurrent retry fails here
                BatchJob.objects.filter(pk=job.pk).update(request_id=request_id)
    except intake.BatchInputError as exc:
        return error_response(400, str(exc), errors.INVALID_ARGUMENT)
    except IntegrityError:
        if earlier := _own_request(api_key, request_id):
            return JsonResponse(job_json(earlier))
        return error_response(
            400, f"requestId {request_id!r} was used by a job now expired.", errors.INVALID_ARGUMENT
        )
    return JsonResponse(job_json(job))


# A retried upload with the same requestId (Google's idempotency parameter) or
# Idempotency-Key header gets the job the first one made, not a second job: a client
# whose connection broke before the answer cannot tell whether its job was made.
REQUEST_ID = re.compile(r"[A-Za-z0-9._-]{1,100}")


def _own_request(api_key: ApiKey, request_id: str) -> BatchJob | None:
    return BatchJob.objects.filter(api_key=api_key, request_id=request_id).first()


@_authenticated("GET")
def detail(request: HttpRequest, api_key: ApiKey, public_id: str) -> HttpResponseBase:
    job = _own_job(api_key, public_id)
    return _not_found(public_id) if job is None else JsonResponse(job_json(job))


@_authenticated("POST")
def cancel(request: HttpRequest, api_key: ApiKey, public_id: str) -> HttpResponseBase:
    job = _own_job(api_key, public_id)
    if job is None:
        return _not_found(public_id)
    running.cancel(job)
    job.refresh_from_db()
    return JsonResponse(job_json(job))


@_authenticated("GET")
def results(request: HttpRequest, api_key: ApiKey, public_id: str) -> HttpResponseBase:
    job = _own_job(api_key, public_id)
    if job is None:
        return _not_found(public_id)
    return StreamingHttpResponse(exports.jsonl_lines(job), content_type="application/x-ndjson")
