"""The OTLP/HTTP traces endpoint, and the pages: sources, a source, Connect.

`export_traces` answers as OTLP/HTTP asks: 200 with an ExportTraceServiceResponse
(partial success naming rejected spans), and for errors a google.rpc.Status in the
request's encoding: 400 malformed, 401 no or a wrong key, 405, 413 too large, 415 an
encoding other than protobuf or JSON, 429 over the key's rate or a source's backlog
(with Retry-After), 503 when the database is locked or away (with Retry-After). The key
is read as on the /v1 API (x-goog-api-key, a Bearer token or ?key=).
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import RequestDataTooBig
from django.db.utils import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from grounding_app.accounts.roles import ADMIN, REVIEWER, has_role, public, role_required
from grounding_app.api.auth import raw_key
from grounding_app.api.models import ApiKey
from grounding_app.batch.models import BatchJob
from grounding_app.limits import api_limit
from grounding_app.rendering.markdown import render_markdown
from grounding_app.traces import otlp, receiver
from grounding_app.traces.models import PendingTrace, SourceJob, TraceSource
from grounding_app.traces.responses import otlp_error, otlp_success
from grounding_app.traces.sample import SERVICE as SAMPLE_SERVICE
from grounding_app.traces.sample import sample_trace
from grounding_app.traces.snippets import snippets

reviewers = role_required(REVIEWER, ADMIN)

RETRY_AFTER_SECONDS = 30
UNKNOWN_SHOWN = 50
DOCS = Path(settings.BASE_DIR) / "docs" / "traces.md"


@public
@csrf_exempt
def export_traces(request: HttpRequest) -> HttpResponse:
    """Store an export's spans and return at once; a worker checks the traces later."""
    if request.method != "POST":
        response = otlp_error(request, 405, "Send traces with POST.")
        response["Allow"] = "POST"
        return response
    encoding = otlp.encoding_of(request.headers.get("Content-Type", ""))
    if encoding is None:
        return otlp_error(
            request, 415, "Content-Type must be application/x-protobuf or application/json."
        )
    raw = raw_key(request)
    if not raw:
        return otlp_error(request, 401, "Missing API key: send it in the x-goog-api-key header.")
    try:
        api_key = ApiKey.authenticate(raw)
        if api_key is None:
            return otlp_error(request, 401, "API key not valid. Please pass a valid API key.")
        limit = api_limit()
        if limit.exceeded(limit.hit(api_key.key_hash)):
            return otlp_error(
                request,
                429,
                f"Quota exceeded: at most {limit.limit} requests per {limit.window} seconds"
                " per API key.",
                limit.retry_after(),
            )
        try:
            body = otlp.decompress(
                request.body,
                request.headers.get("Content-Encoding", ""),
                settings.TRACES_MAX_EXPORT_BYTES,
            )
            parsed = otlp.parse(body, encoding, settings.TRACES_MAX_EXPORT_SPANS)
            received, invalid = otlp.spans(parsed.request)
        except (RequestDataTooBig, otlp.TooLarge) as exc:
            return otlp_error(request, 413, f"The export is too large: {exc}")
        except otlp.Malformed as exc:
            return otlp_error(request, 400, str(exc))
        try:
            outcome = receiver.receive(api_key, received, invalid)
        except receiver.Backlog as exc:
            return otlp_error(
                request, 429, f"Too many traces wait to be checked: {exc}.", RETRY_AFTER_SECONDS
            )
    except (OperationalError, InterfaceError):
        return otlp_error(
            request, 503, "The service is currently unavailable.", RETRY_AFTER_SECONDS
        )
    rejected = outcome.rejected + Counter({otlp.OVER_EXPORT_LIMIT: parsed.over})
    return otlp_success(request, rejected.total(), receiver.describe(rejected))


@reviewers
@require_GET
def source_list(request: HttpRequest) -> HttpResponse:
    sources = TraceSource.objects.select_related("api_key", "job")
    return render(request, "traces/list.html", {"sources": sources})


def _live_jobs(source: TraceSource) -> list[SourceJob]:
    """The source's rolling jobs that have not expired (the retention manager hides
    expired jobs; their SourceJob rows go when the purge deletes them)."""
    live = BatchJob.objects.filter(pk__in=source.jobs.values("job_id"))
    return list(source.jobs.filter(job__in=live).select_related("job")[:30])


@reviewers
@require_GET
def source_detail(request: HttpRequest, pk: int) -> HttpResponse:
    source = get_object_or_404(TraceSource.objects.select_related("api_key"), pk=pk)
    waiting = PendingTrace.objects.filter(
        source=source, state__in=(PendingTrace.State.OPEN, PendingTrace.State.ASSEMBLING)
    ).count()
    unknown = sorted(source.unknown_attributes.items(), key=lambda item: (-item[1], item[0]))
    jobs = _live_jobs(source)
    context: dict[str, Any] = {
        "source": source,
        "waiting": waiting,
        "dropped": sorted(source.dropped.items(), key=lambda item: -item[1]),
        "unknown": unknown[:UNKNOWN_SHOWN],
        "unknown_more": max(0, len(unknown) - UNKNOWN_SHOWN),
        "jobs": jobs,
        "current": next((j.job for j in jobs if j.job_id == source.job_id), None),
        "quiet_seconds": settings.TRACES_QUIET_SECONDS,
        "max_unknown_keys": settings.TRACES_MAX_UNKNOWN_KEYS,
    }
    return render(request, "traces/source.html", context)


PLACEHOLDER_KEY = "YOUR_API_KEY"
SERVICE = "my-rag-app"


@reviewers
@require_http_methods(["GET", "POST"])
def connect(request: HttpRequest) -> HttpResponse:
    """The settings a team pastes into its SDK or Collector. An admin may create a key
    here; its plaintext is shown in the settings once, in this response only."""
    new_key = ""
    is_admin = has_role(request.user, ADMIN)
    if request.method == "POST":
        if not is_admin:
            return HttpResponse("Only an admin creates API keys.", status=403)
        # Control characters (a NUL above all: PostgreSQL refuses it) are no part of a name.
        typed = request.POST.get("name") or ""
        name = "".join(c for c in typed if unicodedata.category(c) != "Cc").strip()[:100]
        name = name or "OpenTelemetry traces"
        _, new_key = ApiKey.issue(name, created_by=request.user)
        messages.warning(request, f"API key {name!r} created: copy it now, it is shown only once.")
    key = new_key or PLACEHOLDER_KEY
    live_keys = ApiKey.objects.filter(revoked_at__isnull=True).select_related("created_by")
    # Each sees the keys they own (names and prefixes are theirs to know); admins all.
    shown = live_keys if is_admin else live_keys.filter(created_by_id=request.user.pk)
    context = {
        # Until the first span arrives the page says it waits, and offers a test trace.
        "last_source": TraceSource.objects.filter(spans_received__gt=0)
        .order_by("-last_seen_at")
        .first(),
        "can_send_test": is_admin and live_keys.exists(),
        "snippets": snippets(request.build_absolute_uri(reverse("traces_otlp")), key, SERVICE),
        "key": key,
        "new_key": new_key,
        "is_admin": is_admin,
        "keys": shown[:20],
        "quiet_seconds": settings.TRACES_QUIET_SECONDS,
    }
    return render(request, "traces/connect.html", context)


@reviewers
@require_POST
def send_test_trace(request: HttpRequest) -> HttpResponse:
    """Store a sample trace as the newest live key's, through the receiver as an export
    would: the sweeper then checks it like any trace (admins, as they own the keys)."""
    if not has_role(request.user, ADMIN):
        return HttpResponse("Only an admin sends test traces.", status=403)
    key = ApiKey.objects.filter(revoked_at__isnull=True).order_by("-created_at").first()
    if key is None:
        messages.error(request, "Create an API key first: the test trace is sent with one.")
        return redirect("traces:connect")
    try:
        receiver.receive(key, sample_trace(), Counter())
    except receiver.Backlog as exc:
        messages.error(request, f"Not sent: {exc}.")
        return redirect("traces:connect")
    messages.success(
        request,
        f"A test trace was sent as service {SAMPLE_SERVICE!r} with the key {key.name!r}; it is "
        f"checked within {settings.TRACES_QUIET_SECONDS} seconds and listed under Trace sources.",
    )
    return redirect("traces:connect")


@reviewers
@require_GET
def traces_docs(request: HttpRequest) -> HttpResponse:
    """docs/traces.md, rendered as answers are (sanitised Markdown), so the Connect page
    can link to it on any deployment: the image holds the repository's docs."""
    text = DOCS.read_text(encoding="utf-8") if DOCS.exists() else ""
    return render(request, "traces/docs.html", {"doc": render_markdown(text) if text else ""})
