"""Rolling batch jobs: a job that lines are appended to while it lives.

An upload makes a job of a whole file at once (`intake.create_job`); a stream of
answers (traces, grounding_app/traces) appends lines to one job as they come, so every
page of a job applies to it: progress, results, worst-first lists, reviews on demand,
retention. An appended line is stored and chunked exactly as an uploaded one (parsed by
`lines.parse`, bad ones failed at once with their reason), and its chunks are sent by
`messages.send_chunks` after the commit; the workers run them like any other.

The job is "done" whenever all its lines are checked, and running again when lines
come. A worker that finishes the last chunk can mark the job done just as new chunks
are committed (`running.finish_if_complete` reads, then writes); `resume` finds such a
job and sends its waiting chunks, and whoever appends calls it on its next pass.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from grounding_app.api.models import ApiKey
from grounding_app.batch import intake, messages
from grounding_app.batch.lines import LineError, parse
from grounding_app.batch.models import BatchChunk, BatchJob, BatchLine
from grounding_app.engine import DEFAULT_CITATION_THRESHOLD


class JobClosed(ValueError):
    """The job was cancelled (or is full): its owner starts a new one."""


@dataclass(frozen=True)
class Appended:
    numbers: tuple[int, ...]  # the new lines' numbers, in order
    failed: int  # of them, lines that could not be read


def create(
    *, name: str, api_key: ApiKey | None = None, citation_threshold: float | None = None
) -> BatchJob:
    """An empty rolling job: done until its first lines come."""
    now = timezone.now()
    return BatchJob.objects.create(
        name=name[:200],
        citation_threshold=DEFAULT_CITATION_THRESHOLD
        if citation_threshold is None
        else citation_threshold,
        status=BatchJob.Status.DONE,
        total=0,
        api_key=api_key,
        created_at=now,
        finished_at=now,
    )


def append(job: BatchJob, raws: Sequence[str], *, send: bool = True) -> Appended:
    """Store `raws` as the job's next lines and queue their chunks; raises JobClosed
    when the job was cancelled or would pass the line limit of a job."""
    if not raws:
        return Appended((), 0)
    now = timezone.now()
    with transaction.atomic():
        locked = BatchJob.objects.select_for_update().filter(pk=job.pk).first()
        if locked is None or locked.status == BatchJob.Status.CANCELLED:
            raise JobClosed("the job was cancelled or has expired")
        if locked.total + len(raws) > intake.MAX_BATCH_LINES:
            raise JobClosed(f"the job would pass {intake.MAX_BATCH_LINES:,} lines")
        last = BatchLine._base_manager.filter(job=locked).aggregate(n=Max("number"))["n"] or 0
        rows = []
        good = []
        for number, raw in enumerate(raws, start=last + 1):
            try:
                parsed = parse(raw, number)
            except LineError as exc:
                failed = BatchLine.State.FAILED
                rows.append(
                    BatchLine(job=locked, number=number, raw=raw, error=str(exc), state=failed)
                )
                continue
            good.append(number)
            rows.append(
                BatchLine(
                    job=locked,
                    number=number,
                    raw=raw,
                    error=parsed.warning,
                    external_id=parsed.item.external_id[:200],
                    source=parsed.item.source[:200],
                    labels=parsed.labels,
                    answer=parsed.item.answer,
                    answered_at=parsed.answered_at or now,
                )
            )
        BatchLine.objects.bulk_create(rows, batch_size=intake.ROWS_PER_INSERT)
        size = settings.BATCH_CHUNK_LINES
        lease = now + timedelta(seconds=settings.BATCH_QUEUED_TIMEOUT)
        chunks = BatchChunk.objects.bulk_create(
            BatchChunk(job=locked, first=part[0], last=part[-1], lease_until=lease)
            for part in (good[i : i + size] for i in range(0, len(good), size))
        )
        fields: dict[str, object] = {"total": locked.total + len(rows)}
        if chunks:
            fields.update(status=BatchJob.Status.RUNNING, finished_at=None)
            # RUNNING at once: run_chunk restarts the clock only of a QUEUED job, so the
            # job's rate stays lines per second since its first lines came.
            fields["started_at"] = locked.started_at or now
        BatchJob.objects.filter(pk=locked.pk).update(**fields)
        if chunks and send:
            ids = [chunk.pk for chunk in chunks]
            transaction.on_commit(lambda: messages.send_chunks(ids))
    return Appended(tuple(r.number for r in rows), len(rows) - len(good))


def resume(job_ids: Sequence[int], *, send: bool = True) -> list[int]:
    """Reopen those of the jobs that were marked done with chunks still waiting (a
    worker finished the last chunk as new ones were committed) and send those chunks
    again; returns the chunks sent."""
    stuck = list(
        BatchJob.objects.filter(
            pk__in=job_ids, status=BatchJob.Status.DONE, chunks__state=BatchChunk.State.QUEUED
        )
        .values_list("pk", flat=True)
        .distinct()
    )
    if not stuck:
        return []
    BatchJob.objects.filter(pk__in=stuck, status=BatchJob.Status.DONE).update(
        status=BatchJob.Status.RUNNING, finished_at=None
    )
    ids = list(
        BatchChunk.objects.filter(job_id__in=stuck, state=BatchChunk.State.QUEUED).values_list(
            "pk", flat=True
        )
    )
    if send:
        messages.send_chunks(ids)
    return ids
