"""Receiving an export: store its spans under their traces and return at once.

Nothing here checks anything: the request stores spans (one row each, idempotent for a
retried export) and notes, per trace, whether its root span and an LLM span with a
completion have come; a worker assembles the trace later (`services.assemble_due`).
Spans are rejected, and named in the response's partial success, when their ids are not
valid OTLP ids, when their trace was already checked or dropped, or when their trace
holds more than TRACES_MAX_TRACE_SPANS spans; each reason is counted on the source.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import asdict, dataclass
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from grounding_app.api.models import ApiKey
from grounding_app.traces.attributes import LLM, Event, Span, read_span
from grounding_app.traces.models import PendingSpan, PendingTrace, TraceSource
from grounding_app.traces.otlp import Received

INVALID_ID = "an invalid trace or span id"
LATE = "arrived after its trace was checked or dropped"
TOO_MANY = "its trace has more spans than TRACES_MAX_TRACE_SPANS"


class Backlog(Exception):
    """The source has more traces waiting than TRACES_MAX_OPEN_TRACES (answer 429)."""


@dataclass(frozen=True)
class Outcome:
    accepted: int
    rejected: Counter[str]

    @property
    def message(self) -> str:
        return "; ".join(f"{n} span(s): {reason}" for reason, n in self.rejected.items())


def span_data(span: Span) -> dict[str, Any]:
    """What a pending span's row keeps (its trace and span ids are columns)."""
    data = asdict(span)
    del data["trace_id"], data["span_id"]
    return data


def span_from_data(trace_id: str, span_id: str, data: dict[str, Any]) -> Span:
    events = tuple(Event(e["name"], e.get("attributes") or {}) for e in data.get("events", ()))
    return Span(
        trace_id,
        span_id,
        data.get("parent_id", ""),
        data.get("name", ""),
        int(data.get("start_ns", 0)),
        int(data.get("end_ns", 0)),
        data.get("attributes") or {},
        events,
    )


def count_into(source_id: int, field: str, counts: Counter[str]) -> None:
    """Add `counts` to a source's JSON counter, under a row lock (callers are in a
    transaction)."""
    if not counts:
        return
    source = TraceSource.objects.select_for_update().only(field).get(pk=source_id)
    current: dict[str, int] = getattr(source, field) or {}
    for key, n in counts.items():
        current[key] = current.get(key, 0) + n
    TraceSource.objects.filter(pk=source_id).update(**{field: current})


def _store(source: TraceSource, spans: list[Span], now: Any, rejected: Counter[str]) -> int:
    by_trace: defaultdict[str, list[Span]] = defaultdict(list)
    for span in spans:
        by_trace[span.trace_id].append(span)
    existing = set(
        PendingTrace.objects.filter(source=source, trace_id__in=by_trace).values_list(
            "trace_id", flat=True
        )
    )
    PendingTrace.objects.bulk_create(
        (
            PendingTrace(source=source, trace_id=t, first_seen=now, last_seen=now)
            for t in by_trace
            if t not in existing
        ),
        ignore_conflicts=True,  # a concurrent export of the same trace made it first
    )
    traces = PendingTrace.objects.filter(source=source, trace_id__in=by_trace).values_list(
        "pk", "trace_id", "state", "spans"
    )
    rows: list[PendingSpan] = []
    dropped: Counter[str] = Counter()
    for pk, trace_id, state, stored in traces:
        found = by_trace[trace_id]
        if state != PendingTrace.State.OPEN:
            dropped[LATE] += len(found)
            continue
        keep = found[: max(0, settings.TRACES_MAX_TRACE_SPANS - stored)]
        if len(keep) < len(found):
            dropped[TOO_MANY] += len(found) - len(keep)
        if not keep:
            continue
        fields: dict[str, Any] = {"last_seen": now, "spans": F("spans") + len(keep)}
        if any(not span.parent_id for span in keep):
            fields["has_root"] = True
        if any(r.role == LLM and r.completion.strip() for r in map(read_span, keep)):
            fields["has_answer"] = True
        PendingTrace.objects.filter(pk=pk).update(**fields)
        rows.extend(
            PendingSpan(trace_id=pk, span_id=span.span_id, data=span_data(span)) for span in keep
        )
    PendingSpan.objects.bulk_create(rows, batch_size=500, ignore_conflicts=True)
    count_into(source.pk, "dropped", dropped)
    rejected.update(dropped)
    return len(rows)


def receive(api_key: ApiKey, received: list[Received], invalid: Counter[str]) -> Outcome:
    """Store one export's spans; `invalid` counts, per service, the spans rejected for
    their ids. Raises Backlog when a source has too much waiting."""
    now = timezone.now()
    by_service: defaultdict[str, list[Span]] = defaultdict(list)
    for item in received:
        by_service[item.service].append(item.span)
    rejected: Counter[str] = Counter()
    accepted = 0
    with transaction.atomic():
        for service in dict.fromkeys([*by_service, *invalid]):
            spans = by_service.get(service, [])
            source, _ = TraceSource.objects.get_or_create(api_key=api_key, service_name=service)
            waiting = PendingTrace.objects.filter(source=source, state=PendingTrace.State.OPEN)
            if spans and waiting.count() >= settings.TRACES_MAX_OPEN_TRACES:
                raise Backlog(f"{service} has {settings.TRACES_MAX_OPEN_TRACES:,} traces waiting")
            if spans:
                accepted += _store(source, spans, now, rejected)
            if invalid[service]:
                rejected[INVALID_ID] += invalid[service]
                count_into(source.pk, "dropped", Counter({INVALID_ID: invalid[service]}))
            TraceSource.objects.filter(pk=source.pk).update(
                spans_received=F("spans_received") + len(spans) + invalid[service],
                last_seen_at=now,
            )
    return Outcome(accepted, rejected)
