"""Running a batch job's chunks in the workers: each line's result, the chunk's lease,
and the chunks sent again when their worker is gone.

A worker runs a chunk line by line; each result is one conditional update of its line
row (`pending` -> `done`/`failed`), committed with a push of the chunk's lease. So:

- a worker killed mid-chunk loses at most the line it was checking: the rows written
  so far stay, and `requeue_stalled` sends the chunk again once its lease runs out;
- a chunk run twice (sent again, or redelivered by the broker) rewrites nothing: its
  done lines are skipped, and a line two workers race on is written by one of them.

The broker is only a doorbell; the database holds the work and its state. That is
what makes a SIGKILL safe on every transport, the embedded SQLite one included,
whose consumed messages are gone from the queue whether they were acknowledged or
not (see `grounding_app/celery.py`).
"""

from __future__ import annotations

import logging
import os
import socket
from typing import Any

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from grounding_app.active_verifier.checker import Checked, checker
from grounding_app.batch.lines import Check, LineError, check, parse
from grounding_app.batch.messages import send_chunks
from grounding_app.batch.models import BatchChunk, BatchJob, BatchLine
from grounding_app.batch.queueing import ACTIVE, lease, queued_timeout
from grounding_app.calibration.models import Scope
from grounding_app.calibration.services import applied_scope, line_scopes
from grounding_app.engine import CheckRequest, CheckResponse
from grounding_app.llm_judge.judge import Usage

logger = logging.getLogger(__name__)


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def _outcome(
    raw: str, number: int, job: BatchJob, run: Check | None
) -> tuple[dict[str, Any], Usage]:
    """The fields a line's row gets once it has been checked (or has failed), and what
    the LLM judge did for it; a line checked by the process's checker names the verifier
    that judged it."""
    judged: list[Checked] = []
    scope: tuple[Scope, str] | None = None

    def judge(request: CheckRequest) -> CheckResponse:
        judged.append(checker().check(request, scope))
        return judged[-1].response

    usage = Usage()
    try:
        parsed = parse(raw, number)
        # On the scale of the narrowest of its scopes with a calibration applied.
        scope = applied_scope(line_scopes(parsed.labels))
        outcome = check(parsed.item, job.citation_threshold, run or judge, job.source_policy)
    except LineError as exc:
        return {"state": BatchLine.State.FAILED, "error": str(exc)}, usage
    except Exception:
        logger.exception("the engine failed on line %d", number)
        failed = f"line {number}: the engine failed."
        return {"state": BatchLine.State.FAILED, "error": failed}, usage
    for each in judged:
        usage.add(each.llm_judge)
    return {
        "state": BatchLine.State.DONE,
        "result": outcome.result,
        "support_score": outcome.support_score,
        "summary": outcome.summary,
        "claim_count": outcome.claim_count,
        "unsupported_count": outcome.unsupported_count,
        "excluded_cited": outcome.excluded_cited,
        "judged_by": outcome.judged_by,
        "verifier": (judged[-1].verifier or "") if judged else "",
    }, usage


def run_chunk(chunk_id: int, *, run: Check | None = None, worker: str = "") -> int:
    """Check the pending lines of one chunk; returns how many results this call wrote."""
    chunk = BatchChunk.objects.select_related("job__source_policy").filter(pk=chunk_id).first()
    if chunk is None or chunk.state == BatchChunk.State.DONE or not chunk.job.active:
        return 0
    job = chunk.job
    worker = worker or worker_name()
    now = timezone.now()
    BatchChunk.objects.filter(pk=chunk.pk).exclude(state=BatchChunk.State.DONE).update(
        state=BatchChunk.State.RUNNING, lease_until=now + lease()
    )
    BatchJob.objects.filter(pk=job.pk, status=BatchJob.Status.QUEUED).update(
        status=BatchJob.Status.RUNNING, started_at=now
    )
    # The job was live a moment ago; per line, the unfiltered managers save the
    # retention subqueries (a job that expires meanwhile is purged with its lines).
    lines, chunks = BatchLine._base_manager, BatchChunk._base_manager
    pending = list(
        lines.filter(
            job=job,
            number__gte=chunk.first,
            number__lte=chunk.last,
            state=BatchLine.State.PENDING,
        )
        .order_by("number")
        .values_list("pk", "number")
    )
    written = 0
    for pk, number in pending:
        # One read per line: stop at once when the job is cancelled, skip a line that
        # another run of this chunk has written meanwhile.
        current = lines.filter(pk=pk).values_list("state", "job__status", "raw").first()
        state, status, raw = current or ("", "", "")
        if status not in ACTIVE:
            return written
        if state != BatchLine.State.PENDING:
            continue
        fields, usage = _outcome(raw, number, job, run)
        with transaction.atomic():
            written += lines.filter(pk=pk, state=BatchLine.State.PENDING).update(
                **fields, processed_at=timezone.now(), worker=worker[:200]
            )
            if usage.claims:  # spent even when another run wrote the line meanwhile
                BatchJob.objects.filter(pk=job.pk).update(
                    llm_judge_claims=F("llm_judge_claims") + usage.claims,
                    llm_judge_calls=F("llm_judge_calls") + usage.calls,
                    llm_judge_failures=F("llm_judge_failures") + usage.failures,
                    llm_judge_tokens=F("llm_judge_tokens") + usage.tokens,
                    llm_judge_seconds=F("llm_judge_seconds") + usage.seconds,
                )
            chunks.filter(pk=chunk.pk).update(lease_until=timezone.now() + lease())
            if fields.get("verifier") and not job.verifier:  # the job's first verifier
                BatchJob.objects.filter(pk=job.pk, verifier="").update(verifier=fields["verifier"])
                job.verifier = fields["verifier"]
    BatchChunk.objects.filter(pk=chunk.pk).update(state=BatchChunk.State.DONE)
    finish_if_complete(job)
    return written


def finish_if_complete(job: BatchJob) -> bool:
    """Mark the job done once every chunk is; each chunk commits its own state first,
    so the last one to finish always sees the others done."""
    if BatchChunk.objects.filter(job=job).exclude(state=BatchChunk.State.DONE).exists():
        return False
    return bool(
        BatchJob.objects.filter(pk=job.pk, status__in=ACTIVE).update(
            status=BatchJob.Status.DONE, finished_at=timezone.now()
        )
    )


def requeue_stalled(limit: int = 1000) -> list[int]:
    """Send again the chunks whose worker is gone; returns their ids.

    - a running chunk whose lease ran out: its worker stopped pushing the lease (it was
      killed, or its machine went away);
    - a queued chunk sent more than BATCH_QUEUED_TIMEOUT ago while no worker has
      written a line for a lease period (no running or done chunk has a lease still
      ahead): work is waiting and nobody works, so its message went with a dead worker
      (the embedded transport forgets a message once it is handed out).

    Each resend is a conditional update on the lease it read, so two sweepers never
    send the same chunk twice for one expiry.
    """
    now = timezone.now()
    active = BatchChunk.objects.filter(job__status__in=ACTIVE)
    stale = active.filter(state=BatchChunk.State.RUNNING, lease_until__lt=now)
    busy = active.exclude(state=BatchChunk.State.QUEUED).filter(lease_until__gte=now)
    if not busy.exists():
        stale = stale | active.filter(state=BatchChunk.State.QUEUED, lease_until__lt=now)
    sent = [
        pk
        for pk, lease in stale.values_list("pk", "lease_until")[:limit]
        if BatchChunk.objects.filter(pk=pk, lease_until=lease).update(
            state=BatchChunk.State.QUEUED,
            lease_until=now + queued_timeout(),
            sends=F("sends") + 1,
        )
    ]
    if sent:
        logger.warning("sending %d stalled batch chunks again", len(sent))
        send_chunks(sent)
    return sent


def cancel(job: BatchJob) -> bool:
    """Stop a job: workers stop at their next line; lines not yet checked stay pending."""
    return bool(
        BatchJob.objects.filter(pk=job.pk, status__in=ACTIVE).update(
            status=BatchJob.Status.CANCELLED, finished_at=timezone.now()
        )
    )
