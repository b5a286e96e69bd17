"""The pages that count answers not checkable apart and show answers' Markdown (issue 44,
items 13 and 19) in chromium: the batch job's rate by field, the trends, the day's worst
answers and compare, at 375 and 1280 px, light and dark."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest

from grounding_app.batch import intake, running
from grounding_app.batch.models import BatchLine
from grounding_app.engine import GroundingEngine
from tests.batch.conftest import grounding_line
from tests.browser.conftest import Session
from tests.browser.test_axe import violations
from tests.browser.test_widths import SCHEMES, widths_problems
from tests.monitoring import data

pytestmark = pytest.mark.django_db(transaction=True)

SHOTS = Path(__file__).resolve().parents[2] / "var" / "screens" / "round5"
GEMINI = Path(__file__).resolve().parents[1] / "fixtures" / "imports" / "gemini_web_search.json"
ANSWER = (
    "# Heading\n\n**Bold** answer with `code` and [a link](javascript:alert(1)) "
    "<script>window.__xss = 1</script><img src=x onerror=alert(3)>"
)
CLAIM = "**Bold** claim with `code` <img src=x onerror=alert(4)>"


def _pages() -> dict[str, str]:
    gemini = json.dumps(json.loads(GEMINI.read_text(encoding="utf-8")))
    body = "\n".join([gemini, gemini, grounding_line(3, supported=False), grounding_line(4)])
    job = intake.create_job((body + "\n").encode(), name="mixed.jsonl", send=False)
    for chunk in job.chunks.all():
        running.run_chunk(chunk.pk, worker="test")
    now = datetime.now(UTC)
    bot = data.source()
    today = data.job("today", bot)
    worst = data.line(today, 1, now, claims=2, unsupported=1, score=0.2)
    BatchLine.objects.filter(pk=worst.pk).update(answer=ANSWER)
    gone = data.line(today, 2, now, claims=0, summary="not_checkable")
    BatchLine.objects.filter(pk=gone.pk).update(support_score=None)
    before, after = data.job("monday"), data.job("tuesday")
    claims = [(CLAIM, "supported", 0.9)]
    data.line(before, 1, now, external_id="q1", summary="supported", claim_list=claims)
    data.line(
        after,
        1,
        now,
        external_id="q1",
        summary="unsupported",
        score=0.2,
        claim_list=[(CLAIM, "unsupported", 0.2)],
    )
    data.line(before, 2, now, external_id="g", summary="supported", claim_list=claims)
    nc = data.line(after, 2, now, external_id="g", claims=0, summary="not_checkable")
    BatchLine.objects.filter(pk=nc.pk).update(support_score=None)
    return {
        "batch-mixed": job.get_absolute_url(),
        "trends": f"/monitoring/?source={bot.pk}",
        "day": f"/monitoring/day/?source={bot.pk}&day={now.date().isoformat()}",
        "compare": f"/monitoring/compare/?before={before.public_id}&after={after.public_id}",
    }


def test_the_pages_fit_a_phone_and_stay_accessible(
    open_session: Callable[..., Session], fake_engine: GroundingEngine
) -> None:
    session = open_session(role="superuser", name="nia")
    pages = _pages()
    page = session.page
    SHOTS.mkdir(parents=True, exist_ok=True)
    found: list[str] = []
    for scheme in SCHEMES:
        for width in (375, 1280):
            page.emulate_media(color_scheme=scheme)
            page.set_viewport_size({"width": width, "height": 900})
            for name, path in pages.items():
                session.goto(path)
                page.locator("details.compare-pair").evaluate_all(
                    "(all) => all.forEach((d) => { d.open = true; })"
                )
                found += [f"{name} {scheme} {width}: {p}" for p in widths_problems(page)]
                serious = [
                    v["id"] for v in violations(page) if v["impact"] in ("serious", "critical")
                ]
                found += [f"{name} {scheme} {width}: axe {v}" for v in serious]
                page.screenshot(path=str(SHOTS / f"{name}-{scheme}-{width}.png"), full_page=True)
    session.no_xss()
    assert found == []
