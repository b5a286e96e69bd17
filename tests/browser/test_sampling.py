"""The sampling rules page (and a rule's edit page) and the Verifier page's accuracy card
in chromium: no sideways scroll at 375 px, no serious axe-core violation in light or
dark; an admin pauses and deletes a rule from the list, asked first; `-m slow`
redraws docs/img/sampling-rules-*.png and docs/img/verifier-accuracy-*.png (light,
dark, 375 px)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any, Literal

import pytest
from django.utils import timezone

from grounding_app.active_verifier import services as active_verifier
from grounding_app.annotations.items import create_project
from grounding_app.batch.models import BatchLine
from grounding_app.monitoring import sampling
from grounding_app.monitoring.models import SamplingRule
from tests.browser.conftest import Session
from tests.browser.shots import fits, shows
from tests.browser.test_axe import violations
from tests.browser.test_widths import widths_problems
from tests.monitoring import data
from tests.verifiers.test_accuracy import CLAIMS, _label

pytestmark = pytest.mark.django_db(transaction=True)

IMG = Path(__file__).resolve().parents[2] / "docs" / "img"
SHOTS: tuple[tuple[Literal["light", "dark"], int], ...] = (
    ("light", 1280),
    ("dark", 1280),
    ("light", 375),
)


def _seed(make_user: Callable[..., Any]) -> None:
    """Two rules that have sent claims, and the team's labels on the verifier's scores."""
    bot = data.source("support-bot")
    today = timezone.now().date()
    job = data.job("support-bot today", bot, today)
    for n in range(12):
        when = timezone.now() - timedelta(minutes=n)
        made = data.line(job, n + 1, when, claim_list=[(f"Claim {n}.", "supported", 0.5 + n / 50)])
        BatchLine.objects.filter(pk=made.pk).update(source="web" if n % 3 else "mobile")
    labels = create_project(None, name="support-bot: unsure claims")
    sampling.sample(SamplingRule.objects.create(source=bot, project=labels, daily_quota=6), today)
    upload = data.job("eval set, prompt v2")
    SamplingRule.objects.create(job=upload, project=labels, band=0.05, daily_quota=20)
    people = [make_user("annotator", "ann-1"), make_user("annotator", "ann-2")]
    verifier = active_verifier.active().verifier_id
    for row in CLAIMS:
        _label(labels, people, verifier, row)


def _look(session: Session, width: int, scheme: Literal["light", "dark"]) -> None:
    session.page.emulate_media(color_scheme=scheme)
    session.page.set_viewport_size({"width": width, "height": 900})


def test_sampling_and_accuracy_fit_a_phone_and_pass_axe(
    open_session: Callable[..., Session], make_user: Callable[..., Any]
) -> None:
    session = open_session(role="admin", name="ada")
    _seed(make_user)
    found: list[tuple[str, str, int, object]] = []
    edit = f"/monitoring/sampling/{SamplingRule.objects.earliest('pk').pk}/edit/"
    for scheme, width in (*SHOTS, ("dark", 375)):
        _look(session, width, scheme)
        for path in ("/monitoring/sampling/", edit, "/verifiers/"):
            session.goto(path)
            found += [(path, scheme, width, p) for p in widths_problems(session.page)]
            found += [(path, scheme, width, v) for v in violations(session.page)]
    assert session.page.locator("#team-accuracy tbody tr").count() == 3
    session.no_xss()
    assert not found, "\n".join(map(str, found))


def test_an_admin_pauses_and_deletes_a_rule_asked_first(
    open_session: Callable[..., Session], make_user: Callable[..., Any]
) -> None:
    session = open_session(role="admin", name="ada")
    _seed(make_user)
    sent = SamplingRule.objects.get(source__isnull=False)
    session.goto("/monitoring/sampling/")
    row = session.page.locator(f'tr[data-rule="{sent.pk}"]')
    row.get_by_role("button", name="Pause").click()
    session.page.locator(".messages", has_text="paused").wait_for()
    assert row.locator("td").nth(6).inner_text() == "paused"
    sent.refresh_from_db()
    assert not sent.enabled
    row.get_by_role("button", name="Delete").click()  # dismissed: nothing happens
    assert session.dialogs == [
        "Delete this sampling rule? The 6 claims it sent stay in its labeling project, "
        "and a new rule may send them again."
    ]
    assert SamplingRule.objects.filter(pk=sent.pk).exists()
    session.accept_confirms = True
    row.get_by_role("button", name="Delete").click()
    deleted = session.page.locator(".messages", has_text="deleted")
    deleted.wait_for()
    assert "the 6 claims it sent stay in support-bot: unsure claims" in deleted.inner_text()
    assert not SamplingRule.objects.filter(pk=sent.pk).exists()
    assert session.page.locator("tr[data-rule]").count() == 1


@pytest.mark.slow
def test_sampling_and_accuracy_screenshots(
    open_session: Callable[..., Session], make_user: Callable[..., Any]
) -> None:
    session = open_session(role="admin", name="ada")
    _seed(make_user)
    for scheme, width in SHOTS:
        _look(session, width, scheme)
        session.goto("/monitoring/sampling/")
        session.page.wait_for_timeout(300)
        rules = session.page.locator(".sampling-rules")
        shows(rules, "support-bot", "eval set, prompt v2")
        assert rules.locator("tbody tr").count() == 2
        fits(session.page)
        shot = IMG / f"sampling-rules-{scheme}-{width}.png"
        session.page.screenshot(path=str(shot), full_page=True)
        session.goto("/verifiers/")
        session.page.wait_for_timeout(300)
        shows(session.page.locator("#team-accuracy"), "All weeks")
        figures = session.page.locator("#team-accuracy .total-row [data-figure]")
        assert figures.count() >= 2 and "n/a" not in figures.last.inner_text()
        fits(session.page)
        card = IMG / f"verifier-accuracy-{scheme}-{width}.png"
        session.page.locator("#team-accuracy").screenshot(path=str(card))
