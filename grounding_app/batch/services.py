"""What batch pages, the API, the command and the workers do, without HTTP or Celery.

A job is created in one transaction: every non-blank line becomes a row (bad ones
already failed, with their line number and the reason), the good ones are cut into
chunks, and the chunks are sent to the broker once the rows are committed. A worker
runs a chunk line by line; each result is one conditional update of its line row
(`pending` -> `done`/`failed`), committed with a push of the chunk's lease. So:

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
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Count, F, Max, Q
from django.utils import timezone

from grounding_app.active_verifier.checker import Checked, checker
from grounding_app.batch.lines import (
    Check,
    FileError,
    LineError,
    check,
    file_records,
    parse,
    request_for,
)
from grounding_app.batch.models import BatchChunk, BatchJob, BatchLine, BatchUpload
from grounding_app.common.importing import ItemSource
from grounding_app.common.serialize import grounded_from_json
from grounding_app.engine import (
    CHECKED_BY,
    DEFAULT_CITATION_THRESHOLD,
    FEATURE_JUDGE,
    VERIFIER,
    WORD_MATCHING,
    CheckRequest,
    CheckResponse,
)
from grounding_app.formats.grounded import Problem
from grounding_app.llm_judge.judge import Usage
from grounding_app.policies.models import SourcePolicy
from grounding_app.policies.services import attach_to_review
from grounding_app.rendering.languages import JudgeInfo, language_totals, mark_text, summary
from grounding_app.reviews.models import Review
from grounding_app.reviews.services import checked_words, save_review

logger = logging.getLogger(__name__)

MAX_BATCH_BYTES = 16 * 1024 * 1024
MAX_BATCH_LINES = 100_000
MAX_LINE_CHARS = 1024 * 1024  # one request of 200 facts of 10,000 characters fits
ROWS_PER_INSERT = 1000
ACTIVE = (BatchJob.Status.SPLITTING, BatchJob.Status.QUEUED, BatchJob.Status.RUNNING)


class BatchInputError(ValueError):
    """The file as a whole cannot be a job (too large, no lines); bad lines are not this."""


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


# --- creating a job --------------------------------------------------------------


@dataclass(frozen=True)
class _Row:
    number: int
    raw: str
    error: str = ""
    external_id: str = ""
    source: str = ""
    labels: dict[str, str] | None = None
    answer: str = ""
    warning: str = ""  # of a line that is checked all the same (see lines.ParsedLine)


def _read(number: int, data: bytes) -> _Row:
    try:
        raw = data.decode("utf-8").removeprefix("\ufeff").rstrip("\r")
    except UnicodeDecodeError as exc:
        return _Row(number, "", f"line {number}: not UTF-8 (byte {exc.start} of the line).")
    return _read_text(number, raw)


def _read_text(number: int, raw: str) -> _Row:
    if len(raw) > MAX_LINE_CHARS:
        return _Row(number, "", f"line {number}: longer than {MAX_LINE_CHARS:,} characters.")
    if "\x00" in raw:  # PostgreSQL cannot store NUL in text, and JSON never needs one raw
        return _Row(number, "", f"line {number}: holds a NUL character.")
    try:
        parsed = parse(raw, number)
    except LineError as exc:
        return _Row(number, raw, str(exc))
    item = parsed.item
    return _Row(
        number,
        raw,
        "",
        item.external_id[:200],
        item.source[:200],
        parsed.labels,
        item.answer,
        parsed.warning,
    )


def _rows(data: bytes) -> Iterator[_Row]:
    """Lines of JSONL, else the records of a whole-file upload (`lines.file_records`:
    a JSON export of Langfuse traces or RAGAS rows, a RAGAS CSV), each as a JSON line."""
    try:
        records = file_records(data)
    except FileError as exc:
        raise BatchInputError(str(exc)) from exc
    if records is not None:
        for record in records:
            yield (
                _read_text(record.number, record.raw)
                if not record.error
                else _Row(record.number, record.raw, record.error)
            )
        return
    for number, line in enumerate(data.split(b"\n"), start=1):
        if line.strip():
            yield _read(number, line)


def _chunks(numbers: list[int], size: int) -> Iterator[tuple[int, int]]:
    for start in range(0, len(numbers), size):
        part = numbers[start : start + size]
        yield part[0], part[-1]


def _validated_count(data: bytes) -> int:
    """How many lines the file makes, or BatchInputError for a file that cannot be a job;
    a whole-file format is parsed here, a JSONL file only counted."""
    if len(data) > MAX_BATCH_BYTES:
        raise BatchInputError(f"the file is {len(data):,} bytes; at most {MAX_BATCH_BYTES:,}.")
    try:
        records = file_records(data)
    except FileError as exc:
        raise BatchInputError(str(exc)) from exc
    count = (
        len(records)
        if records is not None
        else sum(1 for line in data.split(b"\n") if line.strip())
    )
    if not count:
        raise BatchInputError(
            "the file holds no lines: one JSON object per line, a JSON array of Langfuse "
            "traces or RAGAS rows, or a RAGAS CSV."
        )
    if count > MAX_BATCH_LINES:
        raise BatchInputError(f"{count:,} lines: at most {MAX_BATCH_LINES:,} per job.")
    return count


def _store_lines(job: BatchJob, rows: list[_Row]) -> None:
    """Insert the rows as lines, a thousand per statement; a line already there (a split
    run twice) is kept."""
    for start in range(0, len(rows), ROWS_PER_INSERT):
        BatchLine.objects.bulk_create(
            [
                BatchLine(
                    job=job,
                    number=row.number,
                    raw=row.raw,
                    state=BatchLine.State.FAILED if row.error else BatchLine.State.PENDING,
                    error=row.error or row.warning,
                    external_id=row.external_id,
                    source=row.source,
                    labels=row.labels or {},
                    answer=row.answer,
                )
                for row in rows[start : start + ROWS_PER_INSERT]
            ],
            ignore_conflicts=True,
        )


def _store_chunks(job: BatchJob, rows: list[_Row], send: bool) -> None:
    """Cut the good lines into chunks and (after commit) send them; a job without one is
    done at once. Runs in the transaction that makes the job queued."""
    now = timezone.now()
    good = [row.number for row in rows if not row.error]
    chunks = BatchChunk.objects.bulk_create(
        (
            BatchChunk(job=job, first=first, last=last, lease_until=now + _queued_timeout())
            for first, last in _chunks(good, settings.BATCH_CHUNK_LINES)
        ),
        batch_size=ROWS_PER_INSERT,
    )
    if not chunks:
        BatchJob.objects.filter(pk=job.pk).update(status=BatchJob.Status.DONE, finished_at=now)
        job.status, job.finished_at = BatchJob.Status.DONE, now
    elif send:
        ids = list(BatchChunk.objects.filter(job=job).values_list("pk", flat=True))
        transaction.on_commit(lambda: send_chunks(ids))


def create_job(
    data: bytes,
    *,
    name: str = "",
    citation_threshold: float = DEFAULT_CITATION_THRESHOLD,
    source_policy: SourcePolicy | None = None,
    user: Any = None,
    api_key: Any = None,
    send: bool = True,
) -> BatchJob:
    """Store a job and its lines, and (after commit) send its chunks to the workers."""
    _validated_count(data)
    rows = list(_rows(data))
    with transaction.atomic():
        job = BatchJob.objects.create(
            name=name[:200],
            citation_threshold=citation_threshold,
            source_policy=source_policy,
            total=len(rows),
            created_by=user if getattr(user, "is_authenticated", False) else None,
            api_key=api_key,
        )
        _store_lines(job, rows)
        _store_chunks(job, rows, send)
    return job


def receive_job(
    data: bytes,
    *,
    name: str = "",
    citation_threshold: float = DEFAULT_CITATION_THRESHOLD,
    source_policy: SourcePolicy | None = None,
    user: Any = None,
    api_key: Any = None,
) -> BatchJob:
    """A job from an upload, answered within the request whatever its size.

    Up to BATCH_SPLIT_INLINE_LINES lines it is `create_job`. A larger file (100,000
    lines take tens of seconds to parse and insert, past gunicorn's timeout) is only
    validated and counted here, stored whole, and split into lines by a worker
    (`split_job`); meanwhile the job is `splitting`, with its total known.
    """
    count = _validated_count(data)
    if count <= settings.BATCH_SPLIT_INLINE_LINES:
        return create_job(
            data,
            name=name,
            citation_threshold=citation_threshold,
            source_policy=source_policy,
            user=user,
            api_key=api_key,
        )
    with transaction.atomic():
        job = BatchJob.objects.create(
            name=name[:200],
            citation_threshold=citation_threshold,
            source_policy=source_policy,
            status=BatchJob.Status.SPLITTING,
            total=count,
            created_by=user if getattr(user, "is_authenticated", False) else None,
            api_key=api_key,
        )
        BatchUpload.objects.create(job=job, data=data)
        transaction.on_commit(lambda: send_split(job.pk))
    return job


def split_job(job_id: int, *, send: bool = True) -> bool:
    """Split a stored upload into lines and chunks; True when this call queued the job.

    Lines go in a thousand per transaction (a long one would hold SQLite's write lock);
    the job turns `queued` in one conditional update with its chunks, so a split run
    twice (sent again by the sweeper, or racing another worker) queues the job once, and
    a job cancelled meanwhile stays cancelled.
    """
    upload = BatchUpload.objects.select_related("job").filter(job_id=job_id).first()
    if upload is None:
        return False
    job = upload.job
    if job.status == BatchJob.Status.SPLITTING:
        try:
            rows = list(_rows(bytes(upload.data)))
        except BatchInputError:  # validated when it came; read the same way since
            rows = []
        _store_lines(job, rows)
        with transaction.atomic():
            if BatchJob.objects.filter(pk=job.pk, status=BatchJob.Status.SPLITTING).update(
                status=BatchJob.Status.QUEUED, total=len(rows)
            ):
                _store_chunks(job, rows, send)
                BatchUpload.objects.filter(pk=upload.pk).delete()
                return True
    BatchUpload.objects.filter(pk=upload.pk).delete()  # cancelled, or split by another
    return False


def split_waiting(older_than: timedelta) -> list[int]:
    """Split the uploads whose split message was lost (the broker was down, the worker
    died): jobs still splitting after `older_than`. Returns the jobs this call queued."""
    since = timezone.now() - older_than
    waiting = BatchJob.objects.filter(
        status=BatchJob.Status.SPLITTING, local=False, created_at__lt=since
    ).values_list("pk", flat=True)
    return [pk for pk in list(waiting[:10]) if split_job(pk)]


def send_split(job_id: int) -> None:
    """Ask a worker to split the job's upload; a broker that is down only delays it
    (the sweeper splits what waits)."""
    from grounding_app.batch.tasks import split_upload

    try:
        split_upload.apply_async((job_id,), queue=settings.CELERY_TASK_DEFAULT_QUEUE)
    except Exception:
        logger.exception("could not send a batch split to the broker; the sweeper will split")


def send_chunks(ids: Iterable[int]) -> None:
    """Ring the doorbell for each chunk; a broker that is down only delays the job
    (the sweeper sends queued chunks again after BATCH_QUEUED_TIMEOUT)."""
    from grounding_app.batch.tasks import send

    try:
        send(list(ids))
    except Exception:
        logger.exception("could not send batch chunks to the broker; the sweeper will retry")


def _lease() -> timedelta:
    return timedelta(seconds=settings.BATCH_LEASE_SECONDS)


def _queued_timeout() -> timedelta:
    return timedelta(seconds=settings.BATCH_QUEUED_TIMEOUT)


# --- running a chunk -------------------------------------------------------------


def _outcome(
    raw: str, number: int, job: BatchJob, run: Check | None
) -> tuple[dict[str, Any], Usage]:
    """The fields a line's row gets once it has been checked (or has failed), and what
    the LLM judge did for it; a line checked by the process's checker names the verifier
    that judged it."""
    judged: list[Checked] = []

    def judge(request: CheckRequest) -> CheckResponse:
        judged.append(checker().check(request))
        return judged[-1].response

    usage = Usage()
    try:
        item = parse(raw, number).item
        outcome = check(item, job.citation_threshold, run or judge, job.source_policy)
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
        state=BatchChunk.State.RUNNING, lease_until=now + _lease()
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
            chunks.filter(pk=chunk.pk).update(lease_until=timezone.now() + _lease())
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
            lease_until=now + _queued_timeout(),
            sends=F("sends") + 1,
        )
    ]
    if sent:
        logger.warning("sending %d stalled batch chunks again", len(sent))
        send_chunks(sent)
    return sent


def owner_id(job: BatchJob) -> int | None:
    """Who the job belongs to: its uploader, or for an API job (a trace source's rolling
    job too) the owner of its key."""
    if job.created_by_id is not None:
        return int(job.created_by_id)
    key = job.api_key
    return key.created_by_id if key is not None else None


def cancel(job: BatchJob) -> bool:
    """Stop a job: workers stop at their next line; lines not yet checked stay pending."""
    return bool(
        BatchJob.objects.filter(pk=job.pk, status__in=ACTIVE).update(
            status=BatchJob.Status.CANCELLED, finished_at=timezone.now()
        )
    )


# --- progress and results --------------------------------------------------------


@dataclass(frozen=True)
class Progress:
    total: int
    done: int
    failed: int
    pending: int
    rate: float | None  # lines per second checked by workers
    eta_seconds: float | None

    @property
    def finished(self) -> int:
        return self.done + self.failed

    @property
    def percent(self) -> int:
        return int(100 * self.finished / self.total) if self.total else 100

    @property
    def eta_text(self) -> str:
        if self.eta_seconds is None:
            return "—"
        seconds = round(self.eta_seconds)
        if seconds >= 3600:
            return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"
        if seconds >= 60:
            return f"{seconds // 60} min {seconds % 60:02d} s"
        return f"{seconds} s"


def progress(job: BatchJob) -> Progress:
    counts = dict(
        BatchLine.objects.filter(job=job).values_list("state").annotate(n=Count("pk")).order_by()
    )
    checked = BatchLine.objects.filter(job=job).aggregate(
        n=Count("pk", filter=Q(processed_at__isnull=False)), last=Max("processed_at")
    )
    pending = counts.get(BatchLine.State.PENDING, 0)
    rate = eta = None
    if job.started_at is not None and checked["n"]:
        end = timezone.now() if job.active else (checked["last"] or timezone.now())
        elapsed = (end - job.started_at).total_seconds()
        if elapsed > 0:
            rate = checked["n"] / elapsed
            eta = pending / rate if job.active else None
    return Progress(
        total=job.total,
        done=counts.get(BatchLine.State.DONE, 0),
        failed=counts.get(BatchLine.State.FAILED, 0),
        pending=pending,
        rate=rate,
        eta_seconds=eta,
    )


HISTOGRAM_BINS = 10


def score_histogram(job: BatchJob) -> list[int]:
    """Checked lines per support-score bin of width 0.1 (1.0 falls in the last)."""
    bins = [0] * HISTOGRAM_BINS
    scores = BatchLine.objects.filter(job=job, support_score__isnull=False)
    for (score,) in scores.values_list("support_score").iterator(chunk_size=2000):
        if score is not None:
            bins[min(int(score * HISTOGRAM_BINS), HISTOGRAM_BINS - 1)] += 1
    return bins


@dataclass(frozen=True)
class GroupRate:
    value: str
    lines: int
    unsupported: int
    mean_score: float | None

    @property
    def rate(self) -> float:
        return self.unsupported / self.lines if self.lines else 0.0


def group_keys(job: BatchJob) -> list[str]:
    """The metadata fields that lines of this job carry, for the group-by choice."""
    keys: set[str] = set()
    for (labels,) in BatchLine.objects.filter(job=job).values_list("labels")[:5000]:
        keys.update(labels or ())  # the names only: lines differ in which they carry
    return sorted(keys)


def unsupported_by(job: BatchJob, key: str) -> list[GroupRate]:
    """Per value of metadata field `key`: checked lines, lines with an unsupported claim
    and the mean support score; worst rate first."""
    lines: Counter[str] = Counter()
    unsupported: Counter[str] = Counter()
    scores: defaultdict[str, list[float]] = defaultdict(list)
    rows = BatchLine.objects.filter(job=job, state=BatchLine.State.DONE).values_list(
        "labels", "unsupported_count", "support_score"
    )
    for labels, count, score in rows.iterator(chunk_size=2000):
        value = (labels or {}).get(key, "(none)")
        lines[value] += 1
        unsupported[value] += count > 0
        if score is not None:
            scores[value].append(score)
    groups = [
        GroupRate(
            value,
            n,
            unsupported[value],
            sum(scores[value]) / len(scores[value]) if scores[value] else None,
        )
        for value, n in lines.items()
    ]
    return sorted(groups, key=lambda g: (-g.rate, -g.lines, g.value))


def worst_lines(job: BatchJob, limit: int = 25) -> list[BatchLine]:
    """Checked lines, lowest support score first (lines without a score last)."""
    return list(
        BatchLine.objects.filter(job=job, state=BatchLine.State.DONE)
        .order_by(F("support_score").asc(nulls_last=True), "-unsupported_count", "number")
        .defer("raw", "result")[:limit]
    )


JUDGE_LABELS = {
    VERIFIER: "Verifier",
    FEATURE_JUDGE: "Feature judge",
    WORD_MATCHING: "Word matching",
}


@dataclass(frozen=True)
class JudgeCount:
    """Claims of a job that one judge checked, per language (names, most claims first)."""

    checked_by: str
    claims: int
    languages: tuple[tuple[str, int], ...]

    @property
    def label(self) -> str:
        return JUDGE_LABELS.get(self.checked_by, self.checked_by)

    @property
    def word_matching(self) -> bool:
        return self.checked_by == WORD_MATCHING

    @property
    def text(self) -> str:
        """The line the page shows: "Word matching: 120 claims (Hebrew 118, Chinese 2)"."""
        detail = ", ".join(f"{name} {n:,}" for name, n in self.languages)
        plural = "" if self.claims == 1 else "s"
        return f"{self.label}: {self.claims:,} claim{plural}" + (f" ({detail})" if detail else "")


def judge_counts(job: BatchJob) -> tuple[list[JudgeCount], list[str]]:
    """Checked claims per judge (the engine's order) with their languages, and the codes
    of the languages word matching judged; lines checked before the engine said what
    judged a claim count as none."""
    totals: defaultdict[str, Counter[str]] = defaultdict(Counter)
    rows = BatchLine.objects.filter(job=job, state=BatchLine.State.DONE).values_list("judged_by")
    for (judged,) in rows.iterator(chunk_size=2000):
        for judge, languages in (judged or {}).items():
            for language, n in languages.items():
                totals[judge][language] += n
    order = {judge: i for i, judge in enumerate(CHECKED_BY)}
    counts = [
        JudgeCount(judge, sum(c.values()), tuple(language_totals(c)))
        for judge, c in sorted(totals.items(), key=lambda item: (order.get(item[0], 99), item[0]))
    ]
    matched = sorted(totals[WORD_MATCHING], key=lambda code: -totals[WORD_MATCHING][code])
    return counts, matched


def verifier_counts(job: BatchJob) -> list[dict[str, Any]]:
    """Checked lines per verifier ({"verifier", "n"}), most first: more than one when the
    verifier was switched while the job ran."""
    return list(
        BatchLine.objects.filter(job=job, state=BatchLine.State.DONE)
        .exclude(verifier="")
        .values("verifier")
        .annotate(n=Count("pk"))
        .order_by("-n", "verifier")
    )


@dataclass(frozen=True)
class LineMark:
    """A line's word-matching mark for the results page: short text and the sentence."""

    text: str  # "Hebrew: word matching · 3 of 5 claims"
    note: str  # "3 of 5 checked claims are in Hebrew: checked by word matching; ..."


def line_mark(line: BatchLine, judge: JudgeInfo) -> LineMark | None:
    """The mark of a line with word-matched claims, else None."""
    judged = line.judged_by or {}
    matched = judged.get(WORD_MATCHING) or {}
    if not matched:
        return None
    checked = sum(sum(languages.values()) for languages in judged.values())
    # one code per claim, the most frequent language first
    codes = [c for c, n in sorted(matched.items(), key=lambda item: -item[1]) for _ in range(n)]
    short = mark_text(codes[0]) if len(matched) == 1 else mark_text(None)
    plural = "" if checked == 1 else "s"
    return LineMark(
        f"{short} · {len(codes)} of {checked} claim{plural}", summary(codes, checked, judge)
    )


def excluded_answers(job: BatchJob) -> int:
    """Checked answers that cite a source the job's policy excludes."""
    return BatchLine.objects.filter(job=job, excluded_cited__gt=0).count()


def failed_lines(job: BatchJob, limit: int = 50) -> list[BatchLine]:
    return list(
        BatchLine.objects.filter(job=job, state=BatchLine.State.FAILED)
        .order_by("number")
        .only("number", "error")[:limit]
    )


def warned_lines(job: BatchJob, limit: int = 50) -> list[BatchLine]:
    """Checked lines that came with something wrong (a Gemini support's offsets out of
    range, say): their warning is kept in `error`, and the page must show it."""
    return list(
        BatchLine.objects.filter(job=job, state=BatchLine.State.DONE)
        .exclude(error="")
        .order_by("number")
        .only("number", "error")[:limit]
    )


def _line_problems(line: BatchLine, item: ItemSource) -> tuple[Problem, ...]:
    """What the line's review must say beyond the engine's verdicts: the line's warning,
    and the sources that came without text (the engine never read them, so a claim only
    they could support has no verdict and the answer no score)."""
    problems = []
    if line.error:
        problems.append(Problem(f"line {line.number}", line.error))
    missing = item.meta.get("facts_without_text", ())
    if missing:
        titles = ", ".join(
            item.facts[i].attributes.get("title", "") or f"#{i + 1}" for i in missing
        )
        problems.append(
            Problem(
                "sources",
                f"{len(missing)} of {len(item.facts)} sources came without text (title and "
                f"link only: {titles}); the engine could not read them, so claims they may "
                "support have no verdict.",
            )
        )
    return tuple(problems)


def review_for(user: Any, line: BatchLine) -> Review:
    """The line's review, saved on first demand (not per line: a 50,000-line job would
    otherwise fill the review list with answers nobody opens).

    The review is dated when its job was uploaded, so it expires with the job: the
    answer may hold a search service's results, which may be kept only so long.
    """
    if line.review_id is not None and (review := Review.objects.filter(pk=line.review_id).first()):
        return review
    if line.result is None:
        raise ValueError("only a checked line has a review")
    item = parse(line.raw, line.number).item
    request = request_for(item, line.job.citation_threshold)
    grounded = checked_words(grounded_from_json(line.result), request)
    if problems := _line_problems(line, item):
        grounded = replace(
            grounded,
            candidates=tuple(
                replace(c, problems=c.problems + problems) if i == 0 else c
                for i, c in enumerate(grounded.candidates)
            ),
        )
    review = save_review(
        user,
        grounded,
        source_format=Review.Format.CHECK_GROUNDING,
        request=request,
        raw_payload=line.raw,
        engine_checked=True,
        verifier=line.verifier,
    )
    Review.objects.filter(pk=review.pk).update(created_at=line.job.created_at)
    if line.job.source_policy is not None:
        attach_to_review(review, line.job.source_policy, user)
    BatchLine.objects.filter(pk=line.pk).update(review=review)
    review.refresh_from_db()
    return review
