"""Who runs next, who is there to run it, and how much one key may have waiting.

A broker message is a doorbell, not an order: whichever worker takes one claims the
waiting chunk of the least-served active job (fewest chunks started, then the oldest).
So the messages of a cancelled job, which stay in the broker's FIFO queue, run other
jobs' chunks instead of blocking them, and a one-line job uploaded behind a 100,000-line
one is served by the next message any worker takes. Every chunk still gets a message of
its own, so there are never fewer messages than chunks waiting.

Every chunk's message is counted as sent (`sends`) once published; a chunk left unsent
(the web process died mid-upload) is sent by the sweeper within half a minute. Jobs
that `grounding_batch --local` checks itself are never claimed.

Workers write a heartbeat (`BatchWorker`) from their sweeper thread; `live_workers`
says whether any has been seen recently on a queue.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db.models import Count
from django.utils import timezone

from grounding_app.batch.models import BatchChunk, BatchJob, BatchLine, BatchWorker

ACTIVE = (BatchJob.Status.SPLITTING, BatchJob.Status.QUEUED, BatchJob.Status.RUNNING)


def lease() -> timedelta:
    """How long a running chunk is its worker's without a push (after each line)."""
    return timedelta(seconds=settings.BATCH_LEASE_SECONDS)


def queued_timeout() -> timedelta:
    """How long a queued chunk waits for its message to be taken before it is sent again."""
    return timedelta(seconds=settings.BATCH_QUEUED_TIMEOUT)


def claim_next(attempts: int = 5) -> int | None:
    """Mark the fairest waiting chunk running and return its id; None when none waits."""
    for _ in range(attempts):
        waiting = BatchChunk.objects.filter(
            job__status__in=ACTIVE, job__local=False, state=BatchChunk.State.QUEUED
        )
        jobs = dict(waiting.values_list("job_id", "job__created_at").distinct().order_by())
        if not jobs:
            return None
        started = dict(
            BatchChunk.objects.filter(job_id__in=jobs)
            .exclude(state=BatchChunk.State.QUEUED)
            .values_list("job_id")
            .annotate(n=Count("pk"))
            .order_by()
        )
        job_id = min(jobs, key=lambda pk: (started.get(pk, 0), jobs[pk], pk))
        pk = waiting.filter(job_id=job_id).order_by("first").values_list("pk", flat=True).first()
        if pk is not None and BatchChunk.objects.filter(
            pk=pk, state=BatchChunk.State.QUEUED
        ).update(state=BatchChunk.State.RUNNING, lease_until=timezone.now() + lease()):
            return int(pk)
    return None  # other workers took every chunk we tried; they are being served


UNSENT_GRACE_SECONDS = 30


def take_unsent(limit: int = 1000) -> list[int]:
    """Waiting chunks whose message was never sent, older than UNSENT_GRACE_SECONDS:
    the web process died while it sent a big job's messages (or the broker was down).
    They are marked sent and returned for sending now, not after BATCH_QUEUED_TIMEOUT.
    Two sweepers may both take one; a second message for a chunk only rings twice."""
    since = timezone.now() - timedelta(seconds=UNSENT_GRACE_SECONDS)
    unsent = BatchChunk.objects.filter(
        job__status__in=ACTIVE,
        job__local=False,
        job__created_at__lt=since,
        state=BatchChunk.State.QUEUED,
        sends=0,
    )
    ids = list(unsent.values_list("pk", flat=True)[:limit])
    BatchChunk.objects.filter(pk__in=ids).update(sends=1)
    return ids


def mark_sent(chunk_ids: list[int]) -> None:
    BatchChunk.objects.filter(pk__in=chunk_ids, sends=0).update(sends=1)


def waiting_lines(**owner: object) -> int:
    """Lines not yet checked in the active jobs of one owner (api_key=... or created_by=...)."""
    owned = {f"job__{field}": value for field, value in owner.items()}
    pending = BatchLine.objects.filter(
        job__status__in=ACTIVE, state=BatchLine.State.PENDING, **owned
    ).count()
    # A job still splitting has few lines yet: its total counts instead.
    splitting = BatchJob.objects.filter(status=BatchJob.Status.SPLITTING, **owner)
    pending -= BatchLine.objects.filter(job__in=splitting, state=BatchLine.State.PENDING).count()
    return pending + sum(splitting.values_list("total", flat=True))


def alive_seconds() -> int:
    """How long a heartbeat counts: three sweeps, so one slow write does not matter."""
    return 3 * max(1, settings.BATCH_SWEEP_SECONDS) + 5


def heartbeat(name: str) -> None:
    now = timezone.now()
    BatchWorker.objects.update_or_create(
        name=name[:200], defaults={"queue": settings.CELERY_TASK_DEFAULT_QUEUE, "seen_at": now}
    )
    BatchWorker.objects.filter(seen_at__lt=now - timedelta(days=1)).delete()


def forget(name: str) -> None:
    BatchWorker.objects.filter(name=name[:200]).delete()


def live_workers(queue: str | None = None) -> int:
    """Workers seen on `queue` (the configured one by default) within `alive_seconds`."""
    since = timezone.now() - timedelta(seconds=alive_seconds())
    queue = queue or settings.CELERY_TASK_DEFAULT_QUEUE
    return BatchWorker.objects.filter(queue=queue, seen_at__gte=since).count()
