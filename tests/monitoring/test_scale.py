"""A million checked lines: the trends page answers under a second on SQLite and
PostgreSQL (`-m slow`; DATABASE_URL picks the database). The lines are bulk-inserted
by raw executemany, 30 daily jobs of a trace source, as its rolling jobs would hold."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.db import connection
from django.test import Client

from grounding_app.batch.models import BatchLine
from tests.monitoring import data

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

LINES = 1_000_000
DAYS = 30
ROWS_PER_CALL = 20_000
LIMIT_S = 1.0

_COLUMNS = (
    "job_id, number, raw, state, error, external_id, source, labels, answer, support_score, "
    "summary, claim_count, unsupported_count, excluded_cited, judged_by, verifier, "
    "processed_at, answered_at, worker"
)


def _rows(job_ids: list[int], now: datetime) -> Iterator[tuple[object, ...]]:
    """Job d holds the lines of the d-th 24 hours of the 30 before `now`, evenly spread."""
    per_day = LINES // DAYS
    adapt = connection.ops.adapt_datetimefield_value
    labels = [json.dumps({"model": m, "prompt": p}) for m in ("small", "large") for p in "12"]
    for day, job_id in enumerate(job_ids):
        first = now - timedelta(days=DAYS - day)
        count = per_day if day < DAYS - 1 else LINES - per_day * (DAYS - 1)
        step = timedelta(days=1) / count
        for n in range(count):
            claims = 1 + n % 7
            yield (
                job_id,
                n + 1,
                "",
                "done",
                "",
                f"id-{n}",
                "",
                labels[n % 4],
                "",
                ((n * 37) % 100) / 100,
                "partial",
                claims,
                (n + day) % (claims + 1),
                0,
                "{}",
                "",
                adapt(first + step * (n + 1)),
                adapt(first + step * (n + 1)),
                "",
            )


def _insert(job_ids: list[int], now: datetime) -> None:
    data.bulk_lines(_COLUMNS, _rows(job_ids, now), ROWS_PER_CALL)
    data.analyze()


def _timed(client: Client, query: dict[str, str | int]) -> list[float]:
    """Three requests' seconds (the machine is shared: the median is judged)."""
    took = []
    for _ in range(3):
        start = time.perf_counter()
        page = client.get("/monitoring/", query)
        took.append(time.perf_counter() - start)
        assert page.status_code == 200
    return sorted(took)


def test_a_million_lines_answer_under_a_second(
    client: Client, make_user: Callable[..., Any], capsys: pytest.CaptureFixture[str]
) -> None:
    source = data.source("busy-service")
    now = datetime.now(UTC)
    jobs = [
        data.job(f"day {d}", source, (now - timedelta(days=DAYS - 1 - d)).date())
        for d in range(DAYS)
    ]
    started = time.perf_counter()
    _insert([j.pk for j in jobs], now)
    inserted = time.perf_counter() - started
    assert BatchLine.objects.count() == LINES
    client.force_login(make_user("reviewer"))
    client.get("/monitoring/", {"source": source.pk})  # connects, warms the caches
    figures = {
        "source, 30 days": _timed(client, {"source": source.pk, "days": 30}),
        "all jobs, 30 days": _timed(client, {"days": 30}),
        "source, 90 days": _timed(client, {"source": source.pk, "days": 90}),
        "source, model = large, 30 days": _timed(
            client, {"source": source.pk, "key": "model", "value": "large", "days": 30}
        ),
    }
    with capsys.disabled():
        print(f"\n{connection.vendor}: inserted {LINES:,} lines in {inserted:.1f} s")
        for name, took in figures.items():
            shown = ", ".join(f"{t:.3f}" for t in took)
            print(f"{connection.vendor}: trends page ({name}): {shown} s")
    # The median of three, each page held to the bar: a label filter reads each
    # line's row for its labels (no index holds them) and is the slowest (0.44 s here on
    # a quiet host, up to 0.94 s with the full suite running beside it).
    slow = {n: took for n, took in figures.items() if took[1] >= LIMIT_S}
    assert not slow, f"over {LIMIT_S} s: {slow}"
