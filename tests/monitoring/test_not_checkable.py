"""An answer not checkable (its sources came without text) is counted apart on the
trends and compare pages (issue 44, item 19): it was an answer with no unsupported claim,
and on compare a fall from "supported" to the worst regressions."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from django.test import Client

from grounding_app.batch.models import BatchJob, BatchLine
from grounding_app.monitoring import compare, trends
from tests.monitoring import data

pytestmark = pytest.mark.django_db

NOW = datetime.now(UTC)  # the trends page draws the days up to today


def _not_checkable(of: BatchJob, number: int, external_id: str = "") -> None:
    made = data.line(of, number, NOW, claims=0, external_id=external_id, summary="not_checkable")
    BatchLine.objects.filter(pk=made.pk).update(support_score=None)


def test_trends_count_answers_not_checkable_apart(
    client: Client, make_user: Callable[..., Any]
) -> None:
    bot = data.source()
    job = data.job("today", bot)
    data.line(job, 1, NOW, claims=2, unsupported=1, score=0.4)
    data.line(job, 2, NOW, claims=2, unsupported=0, score=0.9)
    _not_checkable(job, 3)
    _not_checkable(job, 4)
    today = trends.daily(trends.Scope(bot), 1, now=NOW)[-1]
    assert (today.answers, today.flagged) == (2, 1)  # the two not checkable were answers
    assert today.not_checkable == 2
    assert (today.claims, today.unsupported, today.rate) == (4, 1, 0.25)
    assert today.mean_score == pytest.approx(0.65)
    hour = trends.hourly(trends.Scope(bot), now=NOW)[-1]
    assert (hour.answers, hour.not_checkable) == (2, 2)
    client.force_login(make_user("reviewer"))
    page = client.get("/monitoring/", {"source": bot.pk}).content.decode()
    assert '>2 <span class="muted not-checkable" data-not-checkable' in page
    assert ">+ 2 not checkable</span>" in page


def test_compare_neither_rewards_nor_blames_an_answer_not_checkable(
    client: Client, make_user: Callable[..., Any]
) -> None:
    before, after = data.job("monday"), data.job("tuesday")
    claims = [("Paris is in France.", "supported", 0.9)]
    data.line(before, 1, NOW, external_id="gemini", summary="supported", claim_list=claims)
    _not_checkable(after, 1, external_id="gemini")
    worse = [("It has 90 million people.", "unsupported", 0.6)]
    data.line(before, 2, NOW, external_id="q2", summary="partial", score=0.7, claim_list=claims)
    data.line(after, 2, NOW, external_id="q2", summary="unsupported", score=0.6, claim_list=worse)
    result = compare.compare(before, after)
    assert [pair.id for pair in result.changed] == ["q2", "gemini"]
    assert result.changed[1].regression == (0, 0.0, 0)
    b, a = result.figures_before, result.figures_after
    assert (b.answers, b.not_checkable, a.answers, a.not_checkable) == (2, 0, 1, 1)

    client.force_login(make_user("reviewer"))
    query = {"before": str(before.public_id), "after": str(after.public_id)}
    html = client.get("/monitoring/compare/", query).content.decode()
    assert "Not checkable (sources without text), in neither figure: 0 before, 1 after." in html
    move = html[html.index('data-move="supported-not_checkable"') :]
    assert move.index("(neither better nor worse") < move.index("</li>")
    assert (
        "supported (0.90) → not checkable (no score): neither better nor worse, its sources"
        " came without text</summary>"
    ) in html
