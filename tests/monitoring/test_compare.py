"""Compare two runs: answers matched by id, claims by text, counts both ways, and the
CSV (formula-guarded) and JSONL exports."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from datetime import UTC, date, datetime
from typing import Any

import pytest
from django.test import Client

from grounding_app.batch.models import BatchJob, BatchLine
from grounding_app.monitoring import compare
from tests.monitoring import data

pytestmark = pytest.mark.django_db

WHEN = datetime(2026, 11, 30, 12, tzinfo=UTC)


def _runs() -> tuple[BatchJob, BatchJob]:
    before, after = data.job("monday"), data.job("tuesday")
    a = [
        ("Paris is in France.", "supported", 0.9),
        ("It has 90 million people.", "unsupported", 0.2),
    ]
    b = [
        ("Paris is in France.", "supported", 0.95),
        ("It has 90 million people.", "supported", 0.7),
    ]
    data.line(before, 1, WHEN, external_id="q1", summary="partial", score=0.55, claim_list=a)
    data.line(after, 1, WHEN, external_id="q1", summary="supported", score=0.82, claim_list=b)
    same = [("Water boils at 100 C.", "supported", 0.9)]
    data.line(before, 2, WHEN, external_id="q2", summary="supported", claim_list=same)
    data.line(after, 2, WHEN, external_id="q2", summary="supported", claim_list=same)
    worse = [('=HYPERLINK("x")', "unsupported", 0.1)]
    data.line(
        before,
        3,
        WHEN,
        external_id="q3",
        summary="supported",
        claim_list=[(worse[0][0], "supported", 0.8)],
    )
    data.line(after, 3, WHEN, external_id="q3", summary="unsupported", claim_list=worse)
    data.line(before, 4, WHEN, external_id="gone", claim_list=[])
    data.line(after, 4, WHEN, external_id="new", claim_list=[])
    data.line(after, 5, WHEN, claim_list=[])  # no id: counted, never matched
    return before, after


def test_answers_match_by_id_and_claims_by_text() -> None:
    result = compare.compare(*_runs())
    assert (result.matched, result.only_before, result.only_after, result.no_id) == (3, 1, 1, 1)
    assert result.changed_total == 2 and [p.id for p in result.changed] == ["q3", "q1"]
    assert result.answer_moves == [("partial", "supported", 1), ("supported", "unsupported", 1)]
    assert result.claim_moves == [("supported", "unsupported", 1), ("unsupported", "supported", 1)]
    q1 = result.changed[1].claims
    assert [(c.text, c.before_score, c.after_score, c.changed) for c in q1] == [
        ("Paris is in France.", 0.9, 0.95, False),
        ("It has 90 million people.", 0.2, 0.7, True),
    ]


def test_the_first_checked_line_of_a_repeated_id_wins_on_both_sides() -> None:
    before, after = data.job("monday"), data.job("tuesday")
    data.line(before, 1, WHEN, external_id="q1", summary="partial")
    data.line(before, 2, WHEN, external_id="q1", summary="unsupported")
    data.line(before, 3, WHEN, external_id="q2", summary="supported")
    failed = data.line(after, 1, WHEN, external_id="q1", summary="unsupported")
    BatchLine.objects.filter(pk=failed.pk).update(state=BatchLine.State.FAILED)
    data.line(after, 2, WHEN, external_id="q1", summary="supported")
    data.line(after, 3, WHEN, external_id="q1", summary="partial")
    data.line(after, 4, WHEN, external_id="", summary="partial")
    result = compare.compare(before, after)
    assert (result.matched, result.only_before, result.only_after, result.no_id) == (1, 1, 0, 1)
    assert [(p.id, p.before.number, p.after.number) for p in result.changed] == [("q1", 1, 2)]
    assert result.answer_moves == [("partial", "supported", 1)]


def test_a_claim_on_one_side_only_is_listed_with_the_other_empty() -> None:
    pairs = compare.claim_pairs(
        data.result([("A.", "supported", 0.9)]), data.result([("B.", "unsupported", 0.1)])
    )
    assert [(p.text, p.before_verdict, p.after_verdict) for p in pairs] == [
        ("A.", "supported", ""),
        ("B.", "", "unsupported"),
    ]


def _body(client: Client, path: str, query: dict[str, str]) -> str:
    response: Any = client.get(path, query)
    return b"".join(response.streaming_content).decode()


def test_the_page_and_exports(client: Client, make_user: Callable[..., Any]) -> None:
    before, after = _runs()
    client.force_login(make_user("reviewer"))
    query = {"before": str(before.public_id), "after": str(after.public_id)}
    page = client.get("/monitoring/compare/", query)
    html = page.content.decode()
    assert page.status_code == 200 and 'data-stat="changed">2<' in html
    assert 'data-move="partial-supported"' in html

    rows = list(csv.reader(io.StringIO(_body(client, "/monitoring/compare.csv", query))))
    assert rows[0] == list(compare.CSV_COLUMNS)
    assert len(rows) == 1 + 2 + 1 + 1  # q1's two claims, q2's one, q3's one
    q3 = next(r for r in rows if r[0] == "q3")
    assert q3[7] == '\'=HYPERLINK("x")'  # the project's formula guard

    lines = _body(client, "/monitoring/compare.jsonl", query)
    objects = [json.loads(line) for line in lines.splitlines()]
    assert [o["id"] for o in objects] == ["q1", "q2", "q3"]
    assert objects[0]["claims"][1] == {
        "claimText": "It has 90 million people.",
        "before": {"verdict": "unsupported", "score": 0.2},
        "after": {"verdict": "supported", "score": 0.7},
    }
    assert objects[1]["changed"] is False


def test_the_same_run_twice_is_refused(client: Client, make_user: Callable[..., Any]) -> None:
    before, _ = _runs()
    client.force_login(make_user("reviewer"))
    same = {"before": str(before.public_id), "after": str(before.public_id)}
    assert client.get("/monitoring/compare/", same).status_code == 400
    assert client.get("/monitoring/compare.csv", same).status_code == 404


def test_two_days_of_a_source_are_its_two_rolling_jobs(
    client: Client, make_user: Callable[..., Any]
) -> None:
    bot = data.source()
    monday = data.job("bot monday", bot, date(2026, 11, 30))
    tuesday = data.job("bot tuesday", bot, date(2026, 12, 1))
    client.force_login(make_user("reviewer"))
    days = {"source": bot.pk, "day_before": "2026-11-30", "day_after": "2026-12-01"}
    answer = client.get("/monitoring/compare/", days)
    assert answer.status_code == 302
    assert answer["Location"] == (
        f"/monitoring/compare/?before={monday.public_id}&after={tuesday.public_id}"
    )
    missing = client.get("/monitoring/compare/", {**days, "day_after": "2026-12-02"})
    assert missing.status_code == 200 and "no job on one of those days" in missing.content.decode()


def _regressions() -> tuple[BatchJob, BatchJob]:
    """q1 improves, q2 stays partial with a claim turned, q3 falls a little, q4 a lot."""
    before, after = data.job("monday"), data.job("tuesday")
    rows = [
        (
            "q1",
            ("unsupported", 0.2, [("A.", "unsupported", 0.2)]),
            ("supported", 0.9, [("A.", "supported", 0.9)]),
        ),
        (
            "q2",
            ("partial", 0.6, [("B.", "supported", 0.9), ("C.", "unsupported", 0.1)]),
            ("partial", 0.55, [("B.", "unsupported", 0.2), ("C.", "supported", 0.8)]),
        ),
        (
            "q3",
            ("supported", 0.9, [("D.", "supported", 0.9), ("E.", "supported", 0.9)]),
            ("partial", 0.7, [("D.", "supported", 0.9), ("F.", "unsupported", 0.3)]),
        ),
        (
            "q4",
            ("supported", 0.95, [("G.", "supported", 0.95)]),
            ("unsupported", 0.1, [("G.", "unsupported", 0.1)]),
        ),
    ]
    for number, (qid, (s0, v0, c0), (s1, v1, c1)) in enumerate(rows, start=1):
        u0 = sum(v == "unsupported" for _, v, _ in c0)
        u1 = sum(v == "unsupported" for _, v, _ in c1)
        data.line(
            before,
            number,
            WHEN,
            external_id=qid,
            summary=s0,
            score=v0,
            claims=len(c0),
            unsupported=u0,
            claim_list=c0,
        )
        data.line(
            after,
            number,
            WHEN,
            external_id=qid,
            summary=s1,
            score=v1,
            claims=len(c1),
            unsupported=u1,
            claim_list=c1,
        )
    return before, after


def test_the_headline_counts_what_its_breakdown_lists() -> None:
    result = compare.compare(*_regressions())
    assert result.verdicts_changed == sum(n for *_, n in result.answer_moves) == 3
    assert result.changed_total == 4 and result.claims_only == 1  # q2: partial to partial


def test_changed_answers_come_largest_regression_first() -> None:
    result = compare.compare(*_regressions())
    assert [p.id for p in result.changed] == ["q4", "q3", "q2", "q1"]


def test_the_page_heads_with_how_the_rate_and_score_moved(
    client: Client, make_user: Callable[..., Any]
) -> None:
    before, after = _regressions()
    rate, score = compare.compare(before, after).headline
    # Claims before: 6, 2 unsupported (33.3 %); after: 6, 3 unsupported (50.0 %).
    assert (rate.after, rate.move) == ("50.0%", "up 16.7 points from 33.3%: worse")
    assert score.after == "0.56" and score.move == "down 0.10 from 0.66: worse"
    client.force_login(make_user("reviewer"))
    query = {"before": str(before.public_id), "after": str(after.public_id)}
    html = client.get("/monitoring/compare/", query).content.decode()
    assert html.index("How the runs moved") < html.index('id="counts-title"')
    assert "up 16.7 points from 33.3%: worse" in html
    assert 'data-stat="changed">3<' in html and "1 more kept their verdict" in html
    # A claim on one side only is said in words, not as a dash.
    assert '<span class="verdict verdict-supported">supported</span> → not in the run after' in html
    assert 'not in the run before → <span class="verdict verdict-unsupported">' in html
    assert "→ —" not in html
