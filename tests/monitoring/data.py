"""Checked batch lines made directly, with the figures trends, compare and alerts read."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

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
        claim_count=claims,
        unsupported_count=unsupported,
        support_score=score,
        labels=labels or {},
        external_id=external_id,
        summary=summary,
        answer=f"answer {number}",
        result=result(claim_list) if claim_list is not None else None,
    )
