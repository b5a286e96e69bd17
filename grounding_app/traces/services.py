"""Assembling complete traces into lines of each source's rolling batch job.

A trace is due when it has an LLM span with a completion and its root span, or when no
span of it came for TRACES_QUIET_SECONDS (a trace whose root is never exported, or which
is no RAG answer at all), or TRACES_MAX_WAIT_SECONDS after its first span whatever
still comes. A run claims due traces with a token of its own (a conditional update, so
two workers never assemble one trace; a claim older than CLAIM_SECONDS, of a worker that
died, is given back), assembles each (`assemble.assemble`), appends the answers to the
source's rolling job (`batch.rolling`) and deletes the spans. Rows of finished traces
are kept TRACES_MAX_WAIT_SECONDS more, so late spans are recognised, then deleted.

The rolling job is one per source and UTC day: a day's answers are one job on the batch
pages, and each day's job expires with the retention period on its own.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections import Counter, defaultdict
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from grounding_app.batch import rolling
from grounding_app.batch.intake import MAX_BATCH_LINES
from grounding_app.batch.models import BatchJob
from grounding_app.traces.assemble import Assembled, assemble
from grounding_app.traces.models import PendingSpan, PendingTrace, SourceJob, TraceSource
from grounding_app.traces.receiver import count_into, count_unknown, span_from_data

logger = logging.getLogger(__name__)

CLAIM_SECONDS = 120
RUN_LIMIT = 500


def _job_name(source: TraceSource, day: str) -> str:
    return f"Traces of {source.service_name} ({source.api_key.name}), {day}"


def rolling_job(source: TraceSource, now: datetime, lines: int) -> BatchJob:
    """The source's job for today with room for `lines` more, made when there is none
    (a new day, the last one cancelled, expired or full)."""
    day = now.date()
    job = BatchJob.objects.filter(pk=source.job_id).first() if source.job_id else None
    if (
        job is None
        or job.created_at.date() != day
        or job.status == BatchJob.Status.CANCELLED
        or job.total + lines > MAX_BATCH_LINES
    ):
        job = rolling.create(name=_job_name(source, day.isoformat()), api_key=source.api_key)
        SourceJob.objects.create(source=source, job=job, day=day)
        TraceSource.objects.filter(pk=source.pk).update(job=job)
        source.job = job
    return job


def _claim(now: datetime, limit: int) -> str:
    """Mark due traces as this run's; returns the run's token. A trace an export holds
    (adding spans to it) is skipped, not waited for: it is claimed at the next pass, and
    a claim that waited could close a cycle of waits with the export (see `receiver`)."""
    token = uuid.uuid4().hex
    unheld = PendingTrace.objects.select_for_update(skip_locked=True)
    with transaction.atomic():
        lapsed = unheld.filter(
            state=PendingTrace.State.ASSEMBLING,
            claimed_at__lt=now - timedelta(seconds=CLAIM_SECONDS),
        )
        PendingTrace.objects.filter(pk__in=list(lapsed.values_list("pk", flat=True))).update(
            state=PendingTrace.State.OPEN, claim=""
        )
        quiet = now - timedelta(seconds=settings.TRACES_QUIET_SECONDS)
        cap = now - timedelta(seconds=settings.TRACES_MAX_WAIT_SECONDS)
        complete = Q(has_root=True, has_answer=True)
        due = (
            unheld.filter(state=PendingTrace.State.OPEN)
            .filter(complete | Q(last_seen__lte=quiet) | Q(first_seen__lte=cap))
            .order_by("first_seen")
            .values_list("pk", flat=True)[:limit]
        )
        PendingTrace.objects.filter(pk__in=list(due), state=PendingTrace.State.OPEN).update(
            state=PendingTrace.State.ASSEMBLING, claim=token, claimed_at=now
        )
    return token


def assemble_due(now: datetime | None = None, limit: int = RUN_LIMIT, send: bool = True) -> int:
    """Assemble every due trace (at most `limit`); returns how many were assembled or
    dropped. `send=False` leaves the new chunks unsent (a test runs them itself)."""
    now = now or timezone.now()
    token = _claim(now, limit)
    traces = list(
        PendingTrace.objects.filter(claim=token, state=PendingTrace.State.ASSEMBLING)
        .select_related("source__api_key")
        .order_by("first_seen")
    )
    if not traces:
        return 0
    spans = defaultdict(list)
    rows = PendingSpan.objects.filter(trace__in=traces).values_list("trace_id", "span_id", "data")
    for trace_pk, span_id, data in rows.iterator(chunk_size=2000):
        spans[trace_pk].append((span_id, data))
    by_source: defaultdict[int, list[PendingTrace]] = defaultdict(list)
    for trace in traces:
        by_source[trace.source_id].append(trace)
    for group in by_source.values():
        _finish(group, spans, now, send)
    return len(traces)


def _finish(
    traces: list[PendingTrace],
    spans: dict[int, list[tuple[str, dict[str, object]]]],
    now: datetime,
    send: bool,
) -> None:
    source = traces[0].source
    lines: list[str] = []
    checked: list[int] = []
    dropped: Counter[str] = Counter()
    unknown: Counter[str] = Counter()
    for trace in traces:
        found = [span_from_data(trace.trace_id, sid, data) for sid, data in spans[trace.pk]]
        result = assemble(trace.trace_id, source.service_name, found)
        unknown.update(result.unknown_keys)
        if isinstance(result, Assembled):
            lines.append(json.dumps(result.line, ensure_ascii=False))
            checked.append(trace.pk)
        else:
            dropped[result.reason] += len(found)
    with transaction.atomic():
        # The source's row first, as the receiver takes it (see `receiver`).
        TraceSource.objects.filter(pk=source.pk).update(
            traces_checked=F("traces_checked") + len(checked)
        )
        if lines:
            try:
                rolling.append(rolling_job(source, now, len(lines)), lines, send=send)
            except rolling.JobClosed:  # cancelled since we looked: the next job takes them
                TraceSource.objects.filter(pk=source.pk).update(job=None)
                source.job_id = None
                rolling.append(rolling_job(source, now, len(lines)), lines, send=send)
        ids = [t.pk for t in traces]
        PendingSpan.objects.filter(trace_id__in=ids).delete()
        PendingTrace.objects.filter(pk__in=checked).update(state=PendingTrace.State.CHECKED)
        PendingTrace.objects.filter(pk__in=ids).exclude(pk__in=checked).update(
            state=PendingTrace.State.DROPPED
        )
        count_into(source.pk, "dropped", dropped)
        count_unknown(source.pk, unknown)


FORGET_BATCH = 500


def forget_finished(now: datetime | None = None) -> int:
    """Delete rows of traces finished more than TRACES_MAX_WAIT_SECONDS ago (with any
    spans left under them; returns the rows deleted), FORGET_BATCH traces a transaction
    in the order of their ids, skipping rows another transaction holds: one DELETE of
    them all locked rows in no set order and waited while holding them."""
    now = now or timezone.now()
    done = (PendingTrace.State.CHECKED, PendingTrace.State.DROPPED)
    old = now - timedelta(seconds=settings.TRACES_MAX_WAIT_SECONDS)
    finished = PendingTrace.objects.select_for_update(skip_locked=True).filter(
        state__in=done, last_seen__lt=old
    )
    deleted = 0
    while True:
        with transaction.atomic():
            pks = list(finished.order_by("pk").values_list("pk", flat=True)[:FORGET_BATCH])
            deleted += PendingTrace.objects.filter(pk__in=pks).delete()[0] if pks else 0
        if len(pks) < FORGET_BATCH:
            return deleted


def sweep(send: bool = True) -> int:
    """One pass of a worker's traces sweeper: assemble what is due (in runs of
    RUN_LIMIT), resume rolling jobs a worker closed too early, forget old traces."""
    total = 0
    while assembled := assemble_due(send=send):
        total += assembled
        if assembled < RUN_LIMIT:
            break
    jobs = TraceSource.objects.filter(job__isnull=False).values_list("job_id", flat=True)
    rolling.resume(list(jobs), send=send)
    forget_finished()
    return total
