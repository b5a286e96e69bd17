"""Receiving an export: store its spans under their traces and return at once.

Nothing here checks anything: the request stores spans (one row each, idempotent for a
retried export) and notes, per trace, whether its root span and an LLM span with a
completion have come; a worker assembles the trace later (`services.assemble_due`).
Spans are rejected, and named in the response's partial success, when their ids are not
valid OTLP ids, when their trace was already checked or dropped, or when their trace
holds more than TRACES_MAX_TRACE_SPANS spans; each reason is counted on the source.
One export stores the spans of at most TRACES_MAX_EXPORT_SERVICES services and creates
at most TRACES_MAX_NEW_SOURCES sources: every service costs a few statements and a new
one a permanent source, so an export naming a service per resource is refused in part
(a partial success), not stored until the worker is killed.

Rows are written with one multi-row statement per table (`executemany` of a plain
INSERT), not model by model: an export of TRACES_MAX_EXPORT_SPANS one-span traces is
stored in seconds.

Locks, in one order for every writer (`services._finish` too): a source's row first
(sources in the order of their service names), then its traces that the export names.
Exports of one source so take turns, and the sweeper, which claims and forgets traces
skipping rows held (SKIP LOCKED), never waits for an export while holding what the
export waits for: on PostgreSQL an export used to deadlock with the sweeper's claim
(503, retried).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import connection, models, transaction
from django.db.models import F
from django.utils import timezone

from grounding_app.api.models import ApiKey
from grounding_app.traces.attributes import LLM, Event, Span, read_span
from grounding_app.traces.models import PendingSpan, PendingTrace, TraceSource
from grounding_app.traces.otlp import INVALID_ID, Received

__all__ = [
    "INVALID_ID",
    "LATE",
    "OVER_NEW_SOURCES",
    "OVER_SERVICES",
    "TOO_MANY",
    "Backlog",
    "Outcome",
    "receive",
]

# Values per IN (...) lookup: under SQLite's limit on a statement's parameters.
LOOKUP_CHUNK = 2_000
LATE = "arrived after its trace was checked or dropped"
TOO_MANY = "its trace has more spans than TRACES_MAX_TRACE_SPANS"
OVER_SERVICES = "its service is past TRACES_MAX_EXPORT_SERVICES in one export"
OVER_NEW_SOURCES = "its service is new and past TRACES_MAX_NEW_SOURCES in one export"


class Backlog(Exception):
    """The source has more traces waiting than TRACES_MAX_OPEN_TRACES (answer 429)."""


@dataclass(frozen=True)
class Outcome:
    accepted: int
    rejected: Counter[str]

    @property
    def message(self) -> str:
        return describe(self.rejected)


def describe(rejected: Counter[str]) -> str:
    """A partial success's error message: how many spans were refused, and why."""
    return "; ".join(f"{n} span(s): {reason}" for reason, n in rejected.items() if n)


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


def count_unknown(source_id: int, counts: Counter[str]) -> None:
    """Add unknown attribute keys to a source's counts, keeping at most
    TRACES_MAX_UNKNOWN_KEYS distinct keys: an exporter inventing a key per span would
    otherwise grow one JSON value without bound. Keys past the cap are only counted."""
    if not counts:
        return
    source = TraceSource.objects.select_for_update().only("unknown_attributes").get(pk=source_id)
    current: dict[str, int] = source.unknown_attributes or {}
    room = max(0, settings.TRACES_MAX_UNKNOWN_KEYS - len(current))
    not_kept = 0
    for key, n in counts.most_common():
        if key in current:
            current[key] += n
        elif room:
            current[key], room = n, room - 1
        else:
            not_kept += n
    TraceSource.objects.filter(pk=source_id).update(
        unknown_attributes=current, unknown_not_kept=F("unknown_not_kept") + not_kept
    )


def _flags(spans: list[Span]) -> tuple[bool, bool]:
    """(has_root, has_answer) of a trace's spans."""
    return (
        any(not span.parent_id for span in spans),
        any(r.role == LLM and r.completion.strip() for r in map(read_span, spans)),
    )


def _chunks(items: Sequence[str]) -> Iterator[Sequence[str]]:
    for start in range(0, len(items), LOOKUP_CHUNK):
        yield items[start : start + LOOKUP_CHUNK]


def _column(model: type[models.Model], name: str) -> models.Field[Any, Any]:
    field = model._meta.get_field(name)
    assert isinstance(field, models.Field) and field.column  # a concrete column
    return field


def _insert_new(
    model: type[models.Model],
    same: dict[str, Any],
    fields: Sequence[str],
    rows: Iterable[tuple[Any, ...]],
) -> None:
    """INSERT rows of `same` (one value for every row) and `fields` (one per row),
    skipping any that a unique constraint already holds (a retried export, or a
    concurrent one that came first). Values are prepared for the database as the ORM
    would, without building a model per row: `same` once, and per row only JSON (ids,
    text, numbers and booleans go to the driver as they are)."""
    columns = [_column(model, name) for name in (*same, *fields)]
    quote = connection.ops.quote_name
    names = ", ".join(quote(str(f.column)) for f in columns)
    sql = (
        f"INSERT INTO {quote(model._meta.db_table)} ({names})"
        f" VALUES ({', '.join(['%s'] * len(columns))}) ON CONFLICT DO NOTHING"
    )
    fixed = tuple(_column(model, name).get_db_prep_save(v, connection) for name, v in same.items())
    per_row = [_column(model, name) for name in fields]
    json = [i for i, field in enumerate(per_row) if isinstance(field, models.JSONField)]
    prepared = []
    for row in rows:
        values = list(row)
        for i in json:
            values[i] = per_row[i].get_db_prep_save(values[i], connection)
        prepared.append((*fixed, *values))
    if prepared:
        with connection.cursor() as cursor:
            cursor.executemany(sql, prepared)


def _store(source: TraceSource, spans: list[Span], now: Any, rejected: Counter[str]) -> int:
    """Store the spans of one source. Traces first seen here are inserted with their
    flags and counts in one statement; traces some earlier export began get their
    counts added in one UPDATE per distinct change (a retried export, or a trace split
    over exports)."""
    by_trace: defaultdict[str, list[Span]] = defaultdict(list)
    for span in spans:
        by_trace[span.trace_id].append(span)
    limit = settings.TRACES_MAX_TRACE_SPANS
    dropped: Counter[str] = Counter()
    existing: dict[str, tuple[int, str, int]] = {}
    for chunk in _chunks(list(by_trace)):
        # Locked as read: a trace the sweeper claims meanwhile is read as claimed.
        found = PendingTrace.objects.select_for_update().filter(source=source, trace_id__in=chunk)
        read = found.order_by("pk").values_list("pk", "trace_id", "state", "spans")
        for pk, trace_id, state, stored in read:
            existing[trace_id] = (pk, state, stored)
    kept: dict[str, list[Span]] = {}
    for trace_id, found_spans in by_trace.items():
        _, state, stored = existing.get(trace_id, (0, PendingTrace.State.OPEN, 0))
        if state != PendingTrace.State.OPEN:
            dropped[LATE] += len(found_spans)
            continue
        kept[trace_id] = found_spans[: max(0, limit - stored)]
        if len(kept[trace_id]) < len(found_spans):
            dropped[TOO_MANY] += len(found_spans) - len(kept[trace_id])
    new = [trace_id for trace_id in kept if trace_id not in existing]
    same = {
        "source": source.pk,
        "state": PendingTrace.State.OPEN.value,
        "first_seen": now,
        "last_seen": now,
        "claim": "",
    }
    _insert_new(
        PendingTrace,
        same,
        ("trace_id", "spans", "has_root", "has_answer"),
        ((trace_id, len(kept[trace_id]), *_flags(kept[trace_id])) for trace_id in new),
    )
    pks = {trace_id: found[0] for trace_id, found in existing.items()}
    # Rows another export made first (not stamped with our `now`) are updated as old.
    to_update = [t for t in kept if t in existing]
    for chunk in _chunks(new):
        created = PendingTrace.objects.filter(source=source, trace_id__in=chunk)
        for trace_id, pk, first in created.values_list("trace_id", "pk", "first_seen"):
            pks[trace_id] = pk
            if first != now:
                to_update.append(trace_id)
    changes: defaultdict[tuple[int, bool, bool], list[int]] = defaultdict(list)
    for trace_id in to_update:
        if keep := kept[trace_id]:
            changes[(len(keep), *_flags(keep))].append(pks[trace_id])
    for (n, has_root, has_answer), trace_pks in changes.items():
        update: dict[str, Any] = {"last_seen": now, "spans": F("spans") + n}
        update.update({"has_root": True} if has_root else {})
        update.update({"has_answer": True} if has_answer else {})
        for start in range(0, len(trace_pks), LOOKUP_CHUNK):
            chunk_pks = trace_pks[start : start + LOOKUP_CHUNK]
            PendingTrace.objects.filter(pk__in=chunk_pks).update(**update)
    rows = [
        (pks[trace_id], span.span_id, span_data(span))
        for trace_id, keep in kept.items()
        for span in keep
    ]
    _insert_new(PendingSpan, {}, ("trace", "span_id", "data"), rows)
    count_into(source.pk, "dropped", dropped)
    rejected.update(dropped)
    return len(rows)


def _admitted(
    api_key: ApiKey, services: list[str], refused: dict[str, str]
) -> dict[str, TraceSource | None]:
    """The services of an export to store, in its order, with their sources (None for a
    new one): the first TRACES_MAX_EXPORT_SERVICES, of which at most
    TRACES_MAX_NEW_SOURCES have no source yet. Each refused service is noted in
    `refused` with its reason."""
    if len(services) <= min(settings.TRACES_MAX_EXPORT_SERVICES, settings.TRACES_MAX_NEW_SOURCES):
        return dict.fromkeys(services)  # all admitted: no need to look their sources up
    known: dict[str, TraceSource] = {}
    for chunk in _chunks(services):
        found = TraceSource.objects.filter(api_key=api_key, service_name__in=chunk)
        known.update((source.service_name, source) for source in found.only("service_name"))
    admitted: dict[str, TraceSource | None] = {}
    new = 0
    for service in services:
        if len(admitted) >= settings.TRACES_MAX_EXPORT_SERVICES:
            refused[service] = OVER_SERVICES
        elif service not in known and new >= settings.TRACES_MAX_NEW_SOURCES:
            refused[service] = OVER_NEW_SOURCES
        else:
            admitted[service] = known.get(service)
            new += service not in known
    return admitted


def receive(api_key: ApiKey, received: list[Received], invalid: Counter[str]) -> Outcome:
    """Store one export's spans; `invalid` counts, per service, the spans rejected for
    their ids. Raises Backlog when a source has too much waiting."""
    now = timezone.now()
    by_service: defaultdict[str, list[Span]] = defaultdict(list)
    for item in received:
        by_service[item.service].append(item.span)
    rejected: Counter[str] = Counter()
    accepted = 0
    refused: dict[str, str] = {}
    with transaction.atomic():
        services = list(dict.fromkeys([*by_service, *invalid]))
        admitted = _admitted(api_key, services, refused)
        for service, found in sorted(admitted.items(), key=lambda item: item[0]):
            spans = by_service.get(service, [])
            source = (
                found or TraceSource.objects.get_or_create(api_key=api_key, service_name=service)[0]
            )
            # Counted first: the UPDATE locks the source's row before any of its traces.
            TraceSource.objects.filter(pk=source.pk).update(
                spans_received=F("spans_received") + len(spans) + invalid[service],
                last_seen_at=now,
            )
            waiting = PendingTrace.objects.filter(source=source, state=PendingTrace.State.OPEN)
            if spans and waiting.count() >= settings.TRACES_MAX_OPEN_TRACES:
                raise Backlog(f"{service} has {settings.TRACES_MAX_OPEN_TRACES:,} traces waiting")
            if spans:
                accepted += _store(source, spans, now, rejected)
            if invalid[service]:
                rejected[INVALID_ID] += invalid[service]
                count_into(source.pk, "dropped", Counter({INVALID_ID: invalid[service]}))
    for service, reason in refused.items():
        rejected[reason] += len(by_service.get(service, [])) + invalid[service]
    return Outcome(accepted, rejected)
