"""Trends, compare and alert rules in chromium: no sideways scroll at 375 px, no serious
axe-core violation in light or dark, the range picker swaps the figures without a
reload, a day opens its worst answers; `-m slow` redraws the screenshots
docs/img/monitoring-*.png (light, dark, 375 px)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Literal

import pytest
from django.utils import timezone
from playwright.sync_api import Page, expect

from grounding_app.batch.models import BatchJob
from grounding_app.monitoring.models import AlertDelivery, AlertRule
from tests.browser.conftest import Session
from tests.browser.shots import fits, shows
from tests.browser.test_axe import violations
from tests.browser.test_widths import widths_problems
from tests.monitoring import data

pytestmark = pytest.mark.django_db(transaction=True)

SHOTS: tuple[tuple[Literal["light", "dark"], int], ...] = (
    ("light", 1280),
    ("dark", 1280),
    ("light", 375),
)
IMG = Path(__file__).resolve().parents[2] / "docs" / "img"
CLAIMS = (
    "The order shipped from the Leeds warehouse on Monday.",
    "It was delivered by drone within an hour.",
    "The customer was refunded in full.",
)


def _summary(claims: list[tuple[str, str, float]]) -> str:
    return "partial" if any(v == "unsupported" for _, v, _ in claims) else "supported"


def _score(claims: list[tuple[str, str, float]]) -> float:
    return round(sum(score for _, _, score in claims) / len(claims), 2)


def _seed() -> dict[str, str]:
    """Two weeks of a source's answers (worse since a prompt change four days ago), two
    runs to compare and a rule with a delivery log; returns the pages' paths."""
    bot = data.source("support-bot")
    now = timezone.now()
    # A day's 12 answers 37 minutes apart, or closer early in the (UTC) day, so that all
    # fall on their own day and none in the future, whatever the time of the run.
    midnight = now.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    step = min(timedelta(minutes=37), (now - midnight) / 12)
    for day in range(14):
        when = now - timedelta(days=13 - day)
        job = data.job(f"support-bot {when:%Y-%m-%d}", bot, when.date())
        prompt = "v2" if day >= 10 else "v1"
        for n in range(12):
            bad = (n * 5 + day) % (4 if prompt == "v2" else 9) == 0
            data.line(
                job,
                n + 1,
                when - step * n,
                claims=3,
                unsupported=2 if bad else 0,
                score=0.3 if bad else 0.7 + n % 3 / 10,
                labels={"model": "small" if n % 2 else "large", "prompt": prompt},
            )
    monday, tuesday = data.job("eval run, prompt v1"), data.job("eval run, prompt v2")
    for n in range(6):
        verdicts = ["supported", "supported", "unsupported" if n % 3 == 0 else "supported"]
        later = ["supported", "unsupported" if n % 2 else "supported", "supported"]
        before = [
            (c, v, 0.8 if v == "supported" else 0.2) for c, v in zip(CLAIMS, verdicts, strict=True)
        ]
        after = [
            (c, v, 0.85 if v == "supported" else 0.15) for c, v in zip(CLAIMS, later, strict=True)
        ]
        data.line(
            monday,
            n + 1,
            now,
            external_id=f"question-{n}",
            claim_list=before,
            summary=_summary(before),
            score=_score(before),
        )
        data.line(
            tuesday,
            n + 1,
            now,
            external_id=f"question-{n}",
            claim_list=after,
            summary=_summary(after),
            score=_score(after),
        )
    BatchJob.objects.filter(pk__in=(monday.pk, tuesday.pk)).update(total=6)
    rule = AlertRule.objects.create(
        name="support-bot: unsupported rate",
        source=bot,
        level=0.2,
        url="https://hooks.example.com/services/T0/B0/secret",
    )
    window = now.replace(minute=0, second=0, microsecond=0)
    AlertDelivery.objects.create(
        rule=rule,
        body=b"{}",
        state="delivered",
        attempts=3,
        last_status=200,
        window_start=window,
        window_end=window + timedelta(hours=1),
        delivered_at=now,
    )
    AlertDelivery.objects.create(
        rule=rule,
        body=b"{}",
        test=True,
        state="failed",
        attempts=7,
        last_error="ConnectionRefusedError: [Errno 111] Connection refused",
    )
    return {
        "trends": f"/monitoring/?source={bot.pk}&days=14",
        "compare": f"/monitoring/compare/?before={monday.public_id}&after={tuesday.public_id}",
        "rules": "/monitoring/alerts/",
        "rule": f"/monitoring/alerts/{rule.pk}/",
    }


def test_monitoring_pages_fit_a_phone_and_pass_axe(open_session: Callable[..., Session]) -> None:
    session = open_session(role="admin", name="ada")
    pages = _seed()
    page = session.page
    found: list[tuple[str, str, int, object]] = []
    schemes: tuple[tuple[Literal["light", "dark"], int], ...] = (
        ("light", 1280),
        ("dark", 1280),
        ("light", 375),
        ("dark", 375),
    )
    for scheme, width in schemes:
        page.emulate_media(color_scheme=scheme)
        page.set_viewport_size({"width": width, "height": 900})
        for name, path in pages.items():
            session.goto(path)
            found += [(name, scheme, width, p) for p in widths_problems(page)]
            found += [(name, scheme, width, v) for v in violations(page)]
    session.no_xss()
    assert not found, "\n".join(map(str, found))


def test_the_range_picker_and_the_drill_down(open_session: Callable[..., Session]) -> None:
    session = open_session(role="reviewer", name="rita")
    pages = _seed()
    page = session.page
    session.goto(pages["trends"])
    page.evaluate("() => { window.__stay = 1; }")
    page.get_by_label("7 days").check()
    page.wait_for_function(
        "() => document.querySelector('#daily-title').textContent.includes('7 days')"
    )
    assert page.evaluate("() => window.__stay") == 1  # swapped by htmx, not reloaded
    assert "days=7" in page.url
    assert page.locator(".trend-table").first.locator("tbody tr").count() == 7
    today = datetime.now(UTC).date().isoformat()
    page.get_by_role("link", name=today).click()
    page.wait_for_url(f"**/monitoring/day/**day={today}**")
    assert page.locator("h1").inner_text() == f"Worst answers of {today}"
    assert page.locator("tbody tr").count() == 12


def _trends_shown(page: Page) -> None:
    """Two weeks of a source: the daily chart (wide or narrow, as the width asks) and its
    table, a row a day."""
    expect(page.locator("main svg.trend-chart:visible").first).to_be_visible()
    assert page.locator(".trend-table").first.locator("tbody tr").count() == 14


def _compare_shown(page: Page) -> None:
    """The counts, and the first changed answer opened on its claims, before and after."""
    shows(page.locator("main"), "Matched", "answers in both")
    pair = page.locator("details.compare-pair").first
    assert pair.evaluate("(details) => details.open")
    shows(pair.locator("table"), "The customer was refunded in full.")


def _rule_shown(page: Page) -> None:
    """A rule's delivery log: one delivered after retries, one test given up on, and why."""
    shows(page.locator(".delivery-log"), "Delivered", "HTTP 200", "Gave up", "Connection refused")


SHOWN: dict[str, Callable[[Page], None]] = {
    "trends": _trends_shown,
    "compare": _compare_shown,
    "rule": _rule_shown,
}


@pytest.mark.slow
def test_monitoring_screenshots(open_session: Callable[..., Session]) -> None:
    session = open_session(role="admin", name="ada")
    pages = _seed()
    page = session.page
    for name in ("trends", "compare", "rule"):
        for scheme, width in SHOTS:
            page.emulate_media(color_scheme=scheme)
            page.set_viewport_size({"width": width, "height": 900})
            session.goto(pages[name])
            if name == "compare":
                page.locator("details.compare-pair").first.locator("summary").click()
            page.wait_for_timeout(300)
            SHOWN[name](page)
            fits(page)
            page.screenshot(
                path=str(IMG / f"monitoring-{name}-{scheme}-{width}.png"), full_page=True
            )
