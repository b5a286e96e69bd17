"""Taking a file in as a batch job, without HTTP or Celery.

A job is created in one transaction: every non-blank line becomes a row (bad ones
already failed, with their line number and the reason), the good ones are cut into
chunks, and the chunks are sent to the broker once the rows are committed. A file too
large to split within a request is stored whole and split by a worker (`split_job`).
The broker is only a doorbell; the database holds the work and its state, so a lost
message only delays a job (see `running` for how workers take chunks and give them
back).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from grounding_app.batch.lines import FileError, LineError, file_records, parse
from grounding_app.batch.messages import send_chunks, send_split
from grounding_app.batch.models import BatchChunk, BatchJob, BatchLine, BatchUpload
from grounding_app.batch.queueing import queued_timeout
from grounding_app.engine import DEFAULT_CITATION_THRESHOLD
from grounding_app.policies.models import SourcePolicy

MAX_BATCH_BYTES = 16 * 1024 * 1024
MAX_BATCH_LINES = 100_000
MAX_LINE_CHARS = 1024 * 1024  # one request of 200 facts of 10,000 characters fits
ROWS_PER_INSERT = 1000


class BatchInputError(ValueError):
    """The file as a whole cannot be a job (too large, no lines); bad lines are not this."""


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
    answered_at: datetime | None = None  # the answer's own time, when the line gave one


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
        parsed.answered_at,
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
    run twice) is kept. A line that gave no time of its own counts from now."""
    now = timezone.now()
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
                    answered_at=row.answered_at or now,
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
            BatchChunk(job=job, first=first, last=last, lease_until=now + queued_timeout())
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


@dataclass(frozen=True)
class _Upload:
    """What an upload says of its job besides its lines."""

    name: str
    citation_threshold: float
    source_policy: SourcePolicy | None
    user: Any
    api_key: Any

    def create(self, total: int, status: str = BatchJob.Status.QUEUED) -> BatchJob:
        return BatchJob.objects.create(
            name=self.name[:200],
            citation_threshold=self.citation_threshold,
            source_policy=self.source_policy,
            status=status,
            total=total,
            created_by=self.user if getattr(self.user, "is_authenticated", False) else None,
            api_key=self.api_key,
        )


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
    upload = _Upload(name, citation_threshold, source_policy, user, api_key)
    with transaction.atomic():
        job = upload.create(len(rows))
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
    upload = _Upload(name, citation_threshold, source_policy, user, api_key)
    with transaction.atomic():
        job = upload.create(count, BatchJob.Status.SPLITTING)
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
