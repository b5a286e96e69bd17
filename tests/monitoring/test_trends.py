"""Trends: daily and hourly figures by SQL aggregates, per source and label, and the
page's chart, table, range picker and drill-down."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.test import Client

from grounding_app.monitoring import trends
from grounding_app.traces.models import TraceSource
from tests.monitoring import data

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 11, 30, 15, 30, tzinfo=UTC)


def _seed() -> tuple[TraceSource, TraceSource]:
    bot, other = data.source("support-bot"), data.source("search")
    monday = data.job("monday", bot)
    data.line(monday, 1, NOW - timedelta(days=2), claims=4, unsupported=1, score=0.8)
    data.line(monday, 2, NOW - timedelta(days=2, hours=1), claims=4, unsupported=3, score=0.2)
    today = data.job("today", bot)
    data.line(
        today,
        1,
        NOW - timedelta(hours=1),
        claims=5,
        unsupported=0,
        score=0.95,
        labels={"model": "small"},
    )
    data.line(
        today,
        2,
        NOW - timedelta(minutes=5),
        claims=5,
        unsupported=5,
        score=0.1,
        labels={"model": "large"},
    )
    elsewhere = data.job("search", other)
    data.line(elsewhere, 1, NOW - timedelta(hours=2), claims=10, unsupported=10, score=0.0)
    return bot, other


def test_daily_figures_are_sums_and_means_per_utc_day() -> None:
    bot, _ = _seed()
    points = trends.daily(trends.Scope(bot), 7, now=NOW)
    assert [p.bucket for p in points][-3:] == ["2026-11-28", "2026-11-29", "2026-11-30"]
    by_day = {p.bucket: p for p in points}
    two_days_ago, today = by_day["2026-11-28"], by_day["2026-11-30"]
    assert (two_days_ago.answers, two_days_ago.claims, two_days_ago.unsupported) == (2, 8, 4)
    assert two_days_ago.rate == 0.5 and two_days_ago.mean_score == pytest.approx(0.5)
    assert (today.answers, today.claims, today.unsupported, today.flagged) == (2, 10, 5, 1)
    assert by_day["2026-11-29"].answers == 0 and by_day["2026-11-29"].rate is None
    everything = trends.daily(trends.Scope(), 7, now=NOW)
    assert everything[-1].answers == 3  # the other source's line too


def test_a_label_narrows_the_figures() -> None:
    bot, _ = _seed()
    large = trends.daily(trends.Scope(bot, "model", "large"), 7, now=NOW)
    assert (large[-1].answers, large[-1].unsupported, large[-1].mean_score) == (1, 5, 0.1)
    assert sum(p.answers for p in large) == 1


def test_hourly_covers_48_hours_to_this_one() -> None:
    bot, _ = _seed()
    points = trends.hourly(trends.Scope(bot), now=NOW)
    assert len(points) == 48 and points[-1].bucket == "2026-11-30 15"
    found = {p.bucket: p.answers for p in points if p.answers}
    # The lines of two days ago (13:30, 14:30) are before the first hour, 16:00 then.
    assert found == {"2026-11-30 14": 1, "2026-11-30 15": 1}


def test_the_worst_answers_of_a_day_come_lowest_score_first() -> None:
    bot, _ = _seed()
    worst = trends.worst_of_day(trends.Scope(bot), NOW.date())
    assert [line.support_score for line in worst] == [0.1, 0.95]


def test_the_page_draws_chart_table_and_day_links(
    client: Client, make_user: Callable[..., Any]
) -> None:
    bot, _ = _seed()
    client.force_login(make_user("reviewer"))
    page = client.get("/monitoring/", {"source": bot.pk, "days": 7})
    html = page.content.decode()
    assert page.status_code == 200
    assert html.count('class="chart trend-chart chart-wide"') == 2
    assert html.count('class="chart trend-chart chart-narrow"') == 2
    today = datetime.now(UTC).date().isoformat()
    assert f"day={today}" in html or "No answers checked" in html
    partial = client.get(
        "/monitoring/",
        {"source": bot.pk, "days": 14},
        HTTP_HX_REQUEST="true",
    )
    assert partial.content.decode().lstrip().startswith('<div id="figures"')
    assert "last 14 days" in partial.content.decode()


def test_the_day_page_lists_that_days_worst(client: Client, make_user: Callable[..., Any]) -> None:
    bot = data.source()
    job = data.job("today", bot)
    now = datetime.now(UTC)
    data.line(job, 1, now, score=0.05, claims=3, unsupported=3)
    client.force_login(make_user("reviewer"))
    query: dict[str, str | int] = {"source": bot.pk, "day": now.date().isoformat()}
    page = client.get("/monitoring/day/", query)
    assert page.status_code == 200 and "0.05" in page.content.decode()
    assert client.get("/monitoring/day/", {"day": "not-a-day"}).status_code == 400


def test_annotators_and_anonymous_cannot_see_trends(
    client: Client, make_user: Callable[..., Any]
) -> None:
    assert client.get("/monitoring/").status_code == 302
    client.force_login(make_user("annotator"))
    assert client.get("/monitoring/").status_code == 403


def test_a_label_name_is_data_whatever_its_characters() -> None:
    bot = data.source()
    job = data.job("today", bot)
    odd = {'prompt "v"': "2", "a__b": "x", "a.b": "y", "a\\b": "z", "modèle k": "é"}
    data.line(job, 1, NOW, labels=odd, unsupported=1)
    data.line(job, 2, NOW, labels={"prompt": "2"})
    for key, value in odd.items():
        points = trends.daily(trends.Scope(bot, key, value), 1, now=NOW)
        assert (points[0].answers, points[0].unsupported) == (1, 1), key
    assert trends.daily(trends.Scope(bot, "a__b", "y"), 1, now=NOW)[0].answers == 0


@pytest.mark.parametrize(
    ("value", "other"),
    [
        ("large", "small"),
        ("prompt v2", "prompt v1"),
        ("a/b", "a-b"),
        ('say "hi"', "say hi"),  # stored escaped
        ("back\\slash", "backslash"),
        ("modèle", "modele"),  # stored as \u00e8 on SQLite
        ("x", "xx"),
    ],
)
def test_a_label_value_matches_whole_and_only_under_its_key(value: str, other: str) -> None:
    bot = data.source()
    job = data.job("today", bot)
    data.line(job, 1, NOW, labels={"model": value}, unsupported=1)
    data.line(job, 2, NOW, labels={"model": other})
    data.line(job, 3, NOW, labels={"prompt": value, "model": other})  # elsewhere only
    data.line(job, 4, NOW, labels={"model": value + "2"})
    data.line(job, 5, NOW)  # no labels
    points = trends.daily(trends.Scope(bot, "model", value), 1, now=NOW)
    assert (points[0].answers, points[0].unsupported) == (1, 1)


@pytest.mark.parametrize("query", [{"key": "\x00", "value": "b"}, {"key": "a", "value": "\x00"}])
@pytest.mark.parametrize("path", ["/monitoring/", "/monitoring/day/"])
def test_a_label_with_a_nul_is_ignored(
    client: Client, make_user: Callable[..., Any], path: str, query: dict[str, str]
) -> None:
    """Issue 44 item 10: a NUL in ?key= gave a 500 on PostgreSQL (no text holds one)."""
    client.force_login(make_user("reviewer"))
    page = client.get(path, {**query, "day": "2026-01-01"})
    assert page.status_code == 200
    assert page.context["scope"] == trends.Scope()


@pytest.mark.parametrize("day", ["9999-12-31", "10000-01-01", "\x00"])
def test_a_day_past_the_calendar_is_a_bad_request(
    client: Client, make_user: Callable[..., Any], day: str
) -> None:
    """Issue 44 item 10: ?day=9999-12-31 gave a 500 (its next day is past any date)."""
    client.force_login(make_user("reviewer"))
    assert client.get("/monitoring/day/", {"day": day}).status_code == 400
    assert client.get("/monitoring/day/", {"day": "0001-01-01"}).status_code == 200
