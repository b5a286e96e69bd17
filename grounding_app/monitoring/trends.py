"""Daily and hourly figures of checked lines, by SQL aggregates over `batch_line_answered`.

A line's time is its answer's own (`answered_at`, UTC: the time the line or its trace
gave, else when it came; batch/lines.py), so history sent today fills its own days. Each
bucket (a day, an hour) comes from an aggregate over a range of the index
`batch_line_answered`, whose columns hold every figure summed (see `_series` for how
each database is asked).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from django.db.models import Avg, CharField, Count, F, Func, Q, QuerySet, Sum
from django.utils import timezone

from grounding_app.batch.models import BatchJob, BatchLine
from grounding_app.common.importing import NOT_CHECKABLE
from grounding_app.traces.models import SourceJob, TraceSource

RANGES = (7, 14, 30, 90)  # days the picker offers
HOURLY_HOURS = 48
WORST_SHOWN = 25
KEYS_SAMPLED = 2000


@dataclass(frozen=True)
class Scope:
    """Which lines: a trace source's (None: every job's), optionally only those whose
    batch label `key` is `value`."""

    source: TraceSource | None = None
    key: str = ""
    value: str = ""

    def query(self) -> dict[str, str]:
        out = {"source": str(self.source.pk)} if self.source else {}
        if self.key:
            out.update(key=self.key, value=self.value)
        return out

    @property
    def name(self) -> str:
        """The scope in words, for a chart's legend."""
        where = self.source.service_name if self.source else "all jobs"
        return f"{where} · {self.key} = {self.value}" if self.key else where


@dataclass(frozen=True)
class Point:
    bucket: str  # 'YYYY-MM-DD' or 'YYYY-MM-DD HH'
    answers: int  # checkable ones: an answer whose sources came without text is apart
    claims: int
    unsupported: int
    flagged: int  # answers with at least one unsupported claim
    mean_score: float | None
    not_checkable: int = 0  # answers with nothing to judge their claims against

    @property
    def rate(self) -> float | None:
        """Unsupported claims over checked claims; None for a bucket without claims."""
        return self.unsupported / self.claims if self.claims else None


_PATH_KEY = re.compile(r"[ !#-\[\]-~]*")  # printable ASCII but for '"' and '\\'


class LabelText(Func):
    """A batch label's value as text, read once per row with the `->>` operator of both
    databases (Django's KeyTextTransform asks SQLite for the value's JSON type first,
    which parses each line's labels two or three times)."""

    output_field = CharField()

    def __init__(self, key: str) -> None:
        super().__init__(F("labels"))
        self.key = key

    def as_sqlite(self, compiler: Any, connection: Any, **extra: Any) -> Any:
        sql, params = compiler.compile(self.source_expressions[0])
        if not _PATH_KEY.fullmatch(self.key):
            # SQLite compares a path's key with the stored (escaped) JSON text, and no
            # path can hold a quote: such a key is looked up among the decoded keys.
            return f"(SELECT value FROM json_each({sql}) WHERE key = %s)", (*params, self.key)
        return f"({sql} ->> %s)", (*params, f'$."{self.key}"')

    def as_postgresql(self, compiler: Any, connection: Any, **extra: Any) -> Any:
        sql, params = compiler.compile(self.source_expressions[0])
        return f"({sql} ->> %s)", (*params, self.key)


def job_ids(scope: Scope) -> list[int]:
    """The live jobs of the scope: every rolling job of its source, one per day, or every
    job. Listed, not joined: each id drives a seek of the index, where the manager's
    join to the jobs (for their expiry) would be checked on every row."""
    jobs = BatchJob.objects.all()  # its manager hides expired jobs
    if scope.source is not None:
        ids = set(SourceJob.objects.filter(source=scope.source).values_list("job_id", flat=True))
        if scope.source.job_id:
            ids.add(scope.source.job_id)
        jobs = jobs.filter(pk__in=ids)
    return sorted(jobs.values_list("pk", flat=True))


def lines(scope: Scope) -> QuerySet[BatchLine]:
    """The scope's checked lines, of live jobs only (see `job_ids`)."""
    query = BatchLine._base_manager.filter(state=BatchLine.State.DONE, job_id__in=job_ids(scope))
    if scope.key:
        query = query.alias(label=LabelText(scope.key)).filter(label=scope.value)
    return query


# Every column named is in the index (claim_count is never NULL, so counting it counts
# lines), so PostgreSQL answers by an index-only scan; SQLite's index holds the row id.
# A not-checkable answer has no claim judged (claim_count 0), so it is in no claim sum and
# never flagged, but it is no answer without an unsupported claim either: counted apart.
_CHECKABLE = ~Q(summary=NOT_CHECKABLE)
_FIGURES = {
    "answers": Count("claim_count", filter=_CHECKABLE),
    "claims": Sum("claim_count"),
    "unsupported": Sum("unsupported_count"),
    "flagged": Count("claim_count", filter=_CHECKABLE & Q(unsupported_count__gt=0)),
    "not_checkable": Count("claim_count", filter=Q(summary=NOT_CHECKABLE)),
    "mean_score": Avg("support_score"),
}


def _point(bucket: str, found: dict[str, Any]) -> Point:
    return Point(
        bucket,
        found["answers"],
        found["claims"] or 0,
        found["unsupported"] or 0,
        found["flagged"],
        found["mean_score"],
        found["not_checkable"],
    )


def _series(scope: Scope, starts: list[datetime], step: timedelta, label: str) -> list[Point]:
    """A point per bucket (`step` long from each of `starts`), labelled by `label`
    (strftime): one ranged aggregate per bucket. One GROUP BY over the whole range would
    be one statement, but SQLite sorts every row for it (it has no hash aggregate) and
    its Trunc is a Python function called per row: 1.6 s for a million lines against
    0.4 s for thirty ranges; PostgreSQL's hash aggregate over date_trunc was slower than
    the ranges too (docs/monitoring.md has the figures)."""
    query = lines(scope)
    return [
        _point(
            start.strftime(label),
            query.filter(answered_at__gte=start, answered_at__lt=start + step).aggregate(
                **_FIGURES
            ),
        )
        for start in starts
    ]


def daily(scope: Scope, days: int, *, now: datetime | None = None) -> list[Point]:
    """The last `days` UTC days, today included."""
    today = datetime.combine((now or timezone.now()).astimezone(UTC).date(), time.min, UTC)
    starts = [today - timedelta(days=n) for n in range(days - 1, -1, -1)]
    return _series(scope, starts, timedelta(days=1), "%Y-%m-%d")


def hourly(scope: Scope, *, now: datetime | None = None) -> list[Point]:
    """The last HOURLY_HOURS UTC hours, this one included."""
    this_hour = (now or timezone.now()).astimezone(UTC).replace(minute=0, second=0, microsecond=0)
    starts = [this_hour - timedelta(hours=n) for n in range(HOURLY_HOURS - 1, -1, -1)]
    return _series(scope, starts, timedelta(hours=1), "%Y-%m-%d %H")


def worst_of_day(scope: Scope, day: date) -> list[BatchLine]:
    """The day's lowest-scored answers, for the drill-down."""
    start = datetime.combine(day, time.min, tzinfo=UTC)
    return list(
        lines(scope)
        .filter(
            answered_at__gte=start,
            answered_at__lt=start + timedelta(days=1),
            support_score__isnull=False,
        )
        .select_related("job")
        .only(
            "number",
            "external_id",
            "answer",
            "support_score",
            "claim_count",
            "unsupported_count",
            "processed_at",
            "answered_at",
            "labels",
            "job__public_id",
            "job__name",
        )
        .order_by("support_score", "-unsupported_count", "pk")[:WORST_SHOWN]
    )


def label_keys(scope: Scope, days: int) -> dict[str, list[str]]:
    """Label names and their values seen among a sample of the range's lines, for the
    pickers (lines differ in which labels they carry)."""
    start = timezone.now() - timedelta(days=days)
    found: dict[str, set[str]] = {}
    sample = lines(Scope(scope.source)).filter(answered_at__gte=start)
    for (labels,) in sample.values_list("labels").order_by()[:KEYS_SAMPLED]:
        for key, value in (labels or {}).items():
            found.setdefault(key, set()).add(str(value))
    return {key: sorted(values) for key, values in sorted(found.items())}
