"""Trends from the first day (issue 44, item 16): an answer counts on its own time, a
batch line's `time` or `timestamp` and an OTLP trace's first span start, within bounds
(RETENTION_DAYS back, at most a year; ANSWER_TIME_SKEW_SECONDS ahead), so history sent
today fills its own days; a time outside them is said on the line, which counts when it
came."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from grounding_app.batch import intake, rolling
from grounding_app.batch.models import BatchLine
from grounding_app.common.answer_time import answer_time
from grounding_app.monitoring import trends
from grounding_app.traces.assemble import Assembled, assemble
from grounding_app.traces.attributes import Span
from tests.monitoring import data

NOW = datetime(2026, 12, 7, 12, tzinfo=UTC)
BOUNDS = {"oldest": NOW - timedelta(days=30), "newest": NOW + timedelta(minutes=5)}


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2026-12-01T10:00:00Z", datetime(2026, 12, 1, 10, tzinfo=UTC)),
        ("2026-12-01T12:00:00+02:00", datetime(2026, 12, 1, 10, tzinfo=UTC)),
        ("2026-12-01 10:00:00", datetime(2026, 12, 1, 10, tzinfo=UTC)),  # naive: UTC
        (1_796_119_200, datetime(2026, 12, 1, 10, tzinfo=UTC)),  # seconds
        (1_796_119_200_000, datetime(2026, 12, 1, 10, tzinfo=UTC)),  # milliseconds
        (1_796_119_200_000_000, datetime(2026, 12, 1, 10, tzinfo=UTC)),  # microseconds
        (1_796_119_200_000_000_000, datetime(2026, 12, 1, 10, tzinfo=UTC)),  # OTLP ns
    ],
)
def test_a_time_is_read_in_the_forms_exporters_send(value: object, expected: datetime) -> None:
    found = answer_time({"time": value}, **BOUNDS)
    assert found.at == expected and found.key == "time"
    assert answer_time({"timestamp": value}, **BOUNDS).at == expected


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("2026-12-07T12:06:00Z", "is in the future"),  # past the 5 minutes' skew
        ("2026-11-01T00:00:00Z", "more than 30 days ago"),
        ("yesterday", "not an ISO 8601 time or epoch"),
        (True, "not an ISO 8601 time or epoch"),
        (1e300, "not an ISO 8601 time or epoch"),
        ([2026], "not an ISO 8601 time or epoch"),
    ],
)
def test_a_time_outside_the_bounds_is_refused_with_why(value: object, problem: str) -> None:
    found = answer_time({"time": value}, **BOUNDS)
    assert found.at is None and problem in found.problem
    assert answer_time({"time": "2026-12-07T12:04:00Z"}, **BOUNDS).at is not None  # in skew
    assert answer_time({"answer": "no time"}, **BOUNDS) == answer_time([], **BOUNDS)


def _line(claim: str, **extra: object) -> str:
    return json.dumps({"id": claim, "facts": [{"text": claim}], "claim": claim, **extra})


@pytest.mark.django_db
def test_an_upload_keeps_each_line_time_and_says_why_it_refused_one() -> None:
    now = timezone.now()
    three_days = (now - timedelta(days=3)).replace(microsecond=0)
    lines = [
        _line("A is 1.", time=three_days.isoformat()),
        _line("B is 2.", timestamp=int((now - timedelta(days=2)).timestamp())),
        _line("C is 3.", time=(now + timedelta(days=1)).isoformat()),
        _line("D is 4."),
    ]
    job = intake.create_job("\n".join(lines).encode(), name="history.jsonl", send=False)
    found = list(BatchLine.objects.filter(job=job).order_by("number"))
    assert found[0].answered_at == three_days
    assert found[1].answered_at.date() == (now - timedelta(days=2)).date()
    for arrived in found[2:]:
        assert abs(arrived.answered_at - now) < timedelta(minutes=1)
    assert '(counted when it came): "time"' in found[2].error and "in the future" in found[2].error
    assert found[3].error == "" and "time" not in found[0].labels


@pytest.mark.django_db
def test_a_trace_counts_at_its_first_span_start() -> None:
    started = timezone.now() - timedelta(days=2, hours=3)
    ns = int(started.timestamp() * 1e9)
    trace = "0af7651916cd43dd8448eb211c80319c"
    spans = [
        Span(trace, "1" * 16, "b" * 16, "retrieve", ns + 5, ns + 9,
             {"openinference.span.kind": "RETRIEVER",
              "retrieval.documents.0.document.content": "A is 1."}),
        Span(trace, "2" * 16, "b" * 16, "chat", ns, ns + 20,
             {"gen_ai.operation.name": "chat", "gen_ai.completion.0.content": "A is 1."}),
    ]  # fmt: skip
    result = assemble(trace, "bot", spans)
    assert isinstance(result, Assembled) and result.line["time"] == ns
    job = data.job("bot today", data.source("bot"))
    rolling.append(job, [json.dumps(result.line)], send=False)
    line = BatchLine.objects.get(job=job)
    assert abs(line.answered_at - started) < timedelta(milliseconds=1)


@pytest.mark.django_db
def test_history_sent_today_fills_its_own_days(
    client: Client, make_user: Callable[..., Any]
) -> None:
    """Lines checked today whose answers were given 1 and 5 days ago count then."""
    job = data.job("history")
    today = timezone.now()
    for number, days in enumerate((1, 5, 5), start=1):
        made = data.line(job, number, today, unsupported=1)
        BatchLine.objects.filter(pk=made.pk).update(answered_at=today - timedelta(days=days))
    points = {p.bucket: p.answers for p in trends.daily(trends.Scope(), 7)}
    assert points[f"{today - timedelta(days=1):%Y-%m-%d}"] == 1
    assert points[f"{today - timedelta(days=5):%Y-%m-%d}"] == 2
    assert points[f"{today:%Y-%m-%d}"] == 0
    client.force_login(make_user("reviewer"))
    day = client.get("/monitoring/day/", {"day": f"{today - timedelta(days=5):%Y-%m-%d}"})
    html = day.content.decode()
    assert "answer 2" in html and "answer 3" in html and "answer 1" not in html
