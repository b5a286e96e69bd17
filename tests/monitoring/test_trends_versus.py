"""Two label values, or two trace sources, on one trends chart (issue 44, item 16): the
unsupported-claim rate of each as its own line (solid with circles, dashed with squares)
and both in the table under it."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from grounding_app.monitoring import charts
from tests.monitoring import data

pytestmark = pytest.mark.django_db


def test_two_series_are_two_lines_told_apart_by_shape() -> None:
    svg = charts.lines_svg(
        ["12-01", "12-02", "12-03"],
        [charts.Series("small", [0.1, None, 0.3]), charts.Series("large", [0.5, 0.4, 0.2])],
        charts.Frame(360, 240),
        title="t",
    )
    assert svg.count('class="series-line series-1"') == 1  # three days joined
    assert svg.count('class="series-line series-0"') == 0  # broken by the empty day
    assert svg.count('class="series-dot series-0"') == 2 and svg.count("<rect") == 3
    assert "<title>large, 12-02: 40.0%</title>" in svg


@pytest.fixture
def reviewer(client: Client, make_user: Callable[..., Any]) -> Client:
    client.force_login(make_user("reviewer"))
    return client


def _rate(page: str, day: str) -> list[str]:
    """A day's row of the side-by-side table."""
    html = page[page.index("data-versus") : page.index('id="hourly-title"')]
    row = re.search(rf"<tr><th scope=\"row\"><a [^>]*>{day}</a></th>(.*?)</tr>", html)
    assert row, day
    return re.findall(r'<td class="num">([^<]*)</td>', row.group(1))


def test_two_values_of_a_label_side_by_side(reviewer: Client) -> None:
    job = data.job("eval")
    today = timezone.now()
    for n in range(4):
        data.line(job, n + 1, today, claims=4, unsupported=1, labels={"model": "small"})
        data.line(job, n + 11, today, claims=4, unsupported=3, labels={"model": "large"})
    page = reviewer.get("/monitoring/", {"key": "model", "value": "small", "vs_value": "large"})
    html = page.content.decode()
    assert page.status_code == 200 and "data-versus" in html
    assert "all jobs · model = small" in html and "all jobs · model = large" in html
    assert html.count('class="series-dot series-0"') == 2  # wide and narrow charts
    assert html.count('class="series-dot series-1"') == 2
    assert _rate(html, f"{today:%Y-%m-%d}") == ["4", "25%", "4", "75%"]
    same = reviewer.get("/monitoring/", {"key": "model", "value": "small", "vs_value": "small"})
    assert "data-versus" not in same.content.decode()
    plain = reviewer.get("/monitoring/", {"key": "model", "value": "small"})
    assert "data-versus" not in plain.content.decode()


def test_two_trace_sources_side_by_side(reviewer: Client) -> None:
    bot, other = data.source("bot"), data.source("helpdesk")
    day = timezone.now() - timedelta(days=1)
    data.line(data.job("bot", bot, day.date()), 1, day, claims=2, unsupported=2)
    data.line(data.job("help", other, day.date()), 1, day, claims=2, unsupported=0)
    page = reviewer.get("/monitoring/", {"source": bot.pk, "vs_source": other.pk, "days": 7})
    html = page.content.decode()
    assert "Unsupported-claim rate per day: bot and helpdesk" in html
    assert _rate(html, f"{day:%Y-%m-%d}") == ["1", "100%", "1", "0%"]
    everything = reviewer.get("/monitoring/", {"source": bot.pk, "vs_source": "all"})
    assert "bot and all jobs" in everything.content.decode()
    htmx = reviewer.get(
        "/monitoring/", {"source": bot.pk, "vs_source": other.pk}, headers={"HX-Request": "true"}
    )
    assert "data-versus" in htmx.content.decode()  # the figures swapped in place carry it
