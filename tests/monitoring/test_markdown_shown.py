"""Answers and claims on the monitoring pages are shown as the review page shows them
(issue 44, item 13): Markdown rendered or dropped, never its raw `**`, `#` or backticks,
and hostile text escaped."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from django.test import Client

from grounding_app.batch.models import BatchLine
from tests.monitoring import data

pytestmark = pytest.mark.django_db

HOSTILE = (
    "# Heading\n\n**Bold** claim with `code` and [a link](javascript:alert(1)) "
    "<script>alert(2)</script><img src=x onerror=alert(3)>"
)


def _safe(html: str) -> None:
    """No tag of the text's own survives, and no javascript: link is made."""
    assert "<script" not in html and "<img" not in html and "&lt;script&gt;" in html
    assert 'href="javascript:' not in html


def test_the_day_page_shows_an_answer_without_its_markdown(
    client: Client, make_user: Callable[..., Any]
) -> None:
    bot = data.source()
    now = datetime.now(UTC)
    made = data.line(data.job("today", bot), 1, now, score=0.1, claims=1, unsupported=1)
    BatchLine.objects.filter(pk=made.pk).update(answer=HOSTILE)
    client.force_login(make_user("reviewer"))
    page = client.get("/monitoring/day/", {"source": bot.pk, "day": now.date().isoformat()})
    cell = re.search(r"<bdi dir=\"(\w+)\">(.*?)</bdi>", page.content.decode(), flags=re.S)
    assert cell is not None and cell[1] == "ltr"
    assert cell[2].startswith("Heading Bold claim with code and ")
    assert not any(mark in cell[2] for mark in ("**", "#", "`"))
    _safe(cell[2])


def test_the_compare_claims_table_renders_a_claims_markdown(
    client: Client, make_user: Callable[..., Any]
) -> None:
    before, after = data.job("monday"), data.job("tuesday")
    when = datetime(2026, 11, 30, 12, tzinfo=UTC)
    claim = "**Bold** with `code`, [a link](javascript:alert(1)) <script>alert(2)</script>"
    hebrew = "ל**פריז** יש 2 מיליון תושבים."
    data.line(
        before,
        1,
        when,
        external_id="q1",
        summary="supported",
        claim_list=[(claim, "supported", 0.9), (hebrew, "supported", 0.9)],
    )
    data.line(
        after,
        1,
        when,
        external_id="q1",
        summary="unsupported",
        claim_list=[(claim, "unsupported", 0.1), (hebrew, "unsupported", 0.1)],
    )
    client.force_login(make_user("reviewer"))
    query = {"before": str(before.public_id), "after": str(after.public_id)}
    html = client.get("/monitoring/compare/", query).content.decode()
    rows = re.findall(r'<tr class="is-changed"><td dir="(\w+)">(.*?)</td>', html, flags=re.S)
    assert [d for d, _ in rows] == ["ltr", "rtl"]
    first = rows[0][1]
    assert "<strong>Bold</strong>" in first and "<code>code</code>" in first
    assert "**" not in first and "`" not in first and "**" not in rows[1][1]
    _safe(first)
