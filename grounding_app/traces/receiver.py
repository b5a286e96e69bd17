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
from dataclasses import dataclass
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
    return {
        "parent_id": span.parent_id,
        "name": span.name,
        "start_ns": span.start_ns,
        "end_ns": span.end_ns,
        "attributes": dict(span.attributes),
        "events": [{"name": e.name, "attributes": dict(e.attributes)} for e in span.events],
    }


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


def _flags(spans: list[Span]) -> dict[str, bool]:
    return {
        "has_root": any(not span.parent_id for span in spans),
        "has_answer": any(r.role == LLM and r.completion.strip() for r in map(read_span, spans)),
    }


def _store(source: TraceSource, spans: list[Span], now: Any, rejected: Counter[str]) -> int:
    """Store the spans of one source. A trace first seen here is created with its flags
    and count in one bulk insert; only a trace some earlier export began is updated
    row by row (a trace split over exports, the rarer case)."""
    by_trace: defaultdict[str, list[Span]] = defaultdict(list)
    for span in spans:
        by_trace[span.trace_id].append(span)
    limit = settings.TRACES_MAX_TRACE_SPANS
    dropped: Counter[str] = Counter()
    existing = {
        trace_id: (pk, state, stored)
        for pk, trace_id, state, stored in PendingTrace.objects.filter(
            source=source, trace_id__in=by_trace
        ).values_list("pk", "trace_id", "state", "spans")
    }
    kept: dict[str, list[Span]] = {}
    for trace_id, found in by_trace.items():
        _, state, stored = existing.get(trace_id, (0, PendingTrace.State.OPEN, 0))
        if state != PendingTrace.State.OPEN:
            dropped[LATE] += len(found)
            continue
        kept[trace_id] = found[: max(0, limit - stored)]
        if len(kept[trace_id]) < len(found):
            dropped[TOO_MANY] += len(found) - len(kept[trace_id])
    new = {trace_id: keep for trace_id, keep in kept.items() if trace_id not in existing}
    PendingTrace.objects.bulk_create(
        (
            PendingTrace(
                source=source,
                trace_id=trace_id,
                first_seen=now,
                last_seen=now,
                spans=len(keep),
                **_flags(keep),
            )
            for trace_id, keep in new.items()
        ),
        ignore_conflicts=True,  # a concurrent export of the same trace made it first
    )
    created = PendingTrace.objects.filter(source=source, trace_id__in=new).values_list(
        "trace_id", "pk", "first_seen"
    )
    pks = {trace_id: pk for trace_id, pk, _ in created}
    # Rows another export made first (not stamped with our `now`) are updated as old.
    to_update = [t for t in kept if t in existing] + [
        trace_id for trace_id, _, first in created if first != now
    ]
    pks.update({t: existing[t][0] for t in kept if t in existing})
    for trace_id in to_update:
        keep = kept[trace_id]
        if keep:
            fields: dict[str, Any] = {"last_seen": now, "spans": F("spans") + len(keep)}
            fields.update({name: True for name, value in _flags(keep).items() if value})
            PendingTrace.objects.filter(pk=pks[trace_id]).update(**fields)
    rows = [
        PendingSpan(trace_id=pks[trace_id], span_id=span.span_id, data=span_data(span))
        for trace_id, keep in kept.items()
        for span in keep
    ]
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
