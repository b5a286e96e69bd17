"""Checked batch lines made directly, with the figures trends, compare and alerts read."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, datetime
from itertools import islice
from typing import Any

from django.db import connection, transaction

from grounding_app.api.models import ApiKey
from grounding_app.batch.models import BatchJob, BatchLine
from grounding_app.traces.models import SourceJob, TraceSource


def source(name: str = "support-bot") -> TraceSource:
    key, _ = ApiKey.issue(f"key of {name}")
    return TraceSource.objects.create(api_key=key, service_name=name)


def job(name: str = "job", of: TraceSource | None = None, day: date | None = None) -> BatchJob:
    made = BatchJob.objects.create(name=name, status=BatchJob.Status.DONE)
    if of is not None:
        SourceJob.objects.create(source=of, job=made, day=day or date.today())
    return made


def result(claims: list[tuple[str, str, float]]) -> dict[str, Any]:
    """A stored grounded answer whose claims have these (text, verdict, score)."""
    segments, start = [], 0
    for text, verdict, score in claims:
        end = start + len(text.encode())
        segments.append(
            {"start": start, "end": end, "text": text, "verdict": verdict, "score": score}
        )
        start = end + 1
    return {"candidates": [{"segments": segments, "sources": []}]}


def line(
    of: BatchJob,
    number: int,
    when: datetime,
    *,
    claims: int = 2,
    unsupported: int = 0,
    score: float = 0.9,
    labels: dict[str, str] | None = None,
    external_id: str = "",
    summary: str = "supported",
    claim_list: list[tuple[str, str, float]] | None = None,
) -> BatchLine:
    return BatchLine.objects.create(
        job=of,
        number=number,
        state=BatchLine.State.DONE,
        processed_at=when,
        answered_at=when,
        claim_count=claims,
        unsupported_count=unsupported,
        support_score=score,
        labels=labels or {},
        external_id=external_id,
        summary=summary,
        answer=f"answer {number}",
        result=result(claim_list) if claim_list is not None else None,
    )


# An alert rule form's fields but its URL, as an admin would fill them in.
ALERT_FORM = {
    "name": "x",
    "kind": "rate",
    "window_minutes": 60,
    "level": 0.2,
    "min_answers": 1,
    "score_below": 0.5,
    "count": 3,
    "format": "generic",
    "enabled": "on",
}


def bulk_lines(columns: str, rows: Iterable[tuple[object, ...]], per_call: int = 20_000) -> None:
    """Insert batch lines fast: COPY on PostgreSQL, executemany in batches on SQLite."""
    with transaction.atomic(), connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            with cursor.cursor.copy(f"COPY batch_batchline ({columns}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
            return
        marks = ", ".join(["%s"] * len(columns.split(",")))
        sql = f"INSERT INTO batch_batchline ({columns}) VALUES ({marks})"
        it = iter(rows)
        while batch := list(islice(it, per_call)):
            cursor.executemany(sql, batch)  # type: ignore[arg-type]


def analyze() -> None:
    """The statistics (and on PostgreSQL the visibility map) a live database keeps."""
    with connection.cursor() as cursor:
        cursor.execute(
            "VACUUM ANALYZE batch_batchline" if connection.vendor == "postgresql" else "ANALYZE"
        )
