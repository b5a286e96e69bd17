"""Issue 44's monitoring pages in chromium (items 14 to 17 and the forms of 19): two
label values side by side on the trends page, the compare page headed by how the runs
moved, the alert and sampling forms showing only the chosen kind's fields (with and
without JavaScript), "Run now" answering in place, and the accuracy card's intervals; at
375, 768 and 1280 px, light and dark: no sideways scroll, no serious axe-core violation.
Screenshots go to var/shots/round5-*.png (looked at, not kept)."""

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
from grounding_app.monitoring.models import SampledClaim, SamplingRule
from tests.browser.conftest import Session
from tests.browser.test_axe import violations
from tests.browser.test_widths import widths_problems
from tests.monitoring import data
from tests.monitoring.test_compare import _regressions
from tests.verifiers.test_accuracy import CLAIMS, _label

pytestmark = pytest.mark.django_db(transaction=True)

SHOTS = Path(__file__).resolve().parents[2] / "var" / "shots"
LOOKS: tuple[tuple[Literal["light", "dark"], int], ...] = tuple(
    (scheme, width) for width in (375, 768, 1280) for scheme in ("light", "dark")
)


def _seed(make_user: Callable[..., Any]) -> dict[str, str]:
    """Two runs to compare, a rule over today's lines, labels on the verifier's scores
    (two weeks, and a week of one class), label keys on recent lines."""
    before, after = _regressions()
    bot = data.source("support-bot")
    job = data.job("support-bot today", bot, timezone.now().date())
    for n in range(16):
        when = timezone.now() - timedelta(days=(n // 2) % 6, minutes=n)
        made = data.line(
            job,
            n + 1,
            when,
            labels={"model": "large" if n % 2 else "small", "prompt": "v2"},
            claims=3,
            unsupported=2 + n % 2 if n % 2 else (n // 2) % 2,
            claim_list=[(f"Claim {n}.", "supported", 0.55 + n / 100)],
        )
        BatchLine.objects.filter(pk=made.pk).update(source="web")
    project = create_project(None, name="support-bot: unsure claims")
    rule = SamplingRule.objects.create(source=bot, project=project, daily_quota=3)
    people = [make_user("annotator", "ann-1"), make_user("annotator", "ann-2")]
    verifier = active_verifier.active().verifier_id
    for row in CLAIMS:
        _label(project, people, verifier, row)
    return {
        "trends": f"/monitoring/?source={bot.pk}&key=model&value=small&vs_value=large&days=7",
        "compare": f"/monitoring/compare/?before={before.public_id}&after={after.public_id}",
        "alert": "/monitoring/alerts/new/",
        "sampling": "/monitoring/sampling/",
        "sampling_edit": f"/monitoring/sampling/{rule.pk}/edit/",
        "verifier": "/verifiers/",
    }


def _look(session: Session, scheme: Literal["light", "dark"], width: int) -> None:
    session.page.emulate_media(color_scheme=scheme)
    session.page.set_viewport_size({"width": width, "height": 900})


def test_the_pages_fit_pass_axe_and_are_shot(
    open_session: Callable[..., Session], make_user: Callable[..., Any]
) -> None:
    session = open_session(role="admin", name="ada")
    paths = _seed(make_user)
    SHOTS.mkdir(parents=True, exist_ok=True)
    found: list[tuple[str, str, int, object]] = []
    for scheme, width in LOOKS:
        _look(session, scheme, width)
        for name, path in paths.items():
            session.goto(path)
            found += [(name, scheme, width, p) for p in widths_problems(session.page)]
            found += [(name, scheme, width, v) for v in violations(session.page)]
            target = session.page.locator("#team-accuracy") if name == "verifier" else None
            shot = SHOTS / f"round5-{name}-{scheme}-{width}.png"
            if target is not None:
                target.screenshot(path=str(shot))
            else:
                session.page.screenshot(path=str(shot), full_page=True)
    session.no_xss()
    assert not found, "\n".join(map(str, found))


@pytest.mark.parametrize("javascript", [True, False])
def test_only_the_chosen_kind_shows(
    open_session: Callable[..., Session], make_user: Callable[..., Any], javascript: bool
) -> None:
    session = open_session(javascript=javascript, role="admin", name="ada")
    paths = _seed(make_user)
    page = session.page
    session.goto(paths["alert"])
    assert page.is_visible("#id_level") and not page.is_visible("#id_score_below")
    page.check('input[name="kind"][value="low_scores"]')
    assert page.is_visible("#id_score_below") and not page.is_visible("#id_level")
    assert page.is_visible("#id_window_minutes")
    session.goto(paths["sampling"])
    assert page.is_visible("#id_source") and not page.is_visible("#id_job")
    page.check('input[name="draws_from"][value="job"]')
    assert page.is_visible("#id_job") and not page.is_visible("#id_source")


def test_run_now_answers_in_place(
    open_session: Callable[..., Session], make_user: Callable[..., Any]
) -> None:
    session = open_session(role="admin", name="ada")
    paths = _seed(make_user)
    rule = SamplingRule.objects.get()
    session.goto(paths["sampling"])
    page = session.page
    row = page.locator(f'tr[data-rule="{rule.pk}"]')
    url = page.url
    row.get_by_role("button", name="Run now").click()
    page.locator(f"#ran-{rule.pk}", has_text="Sent 3 claims").wait_for()
    assert page.url == url and page.locator(".messages").count() == 0  # no reload
    assert page.locator(f"#sent-today-{rule.pk}").inner_text() == "3"
    assert SampledClaim.objects.filter(rule=rule).count() == 3
    found: list[tuple[str, int, object]] = []
    for scheme, width in LOOKS:
        _look(session, scheme, width)
        found += [(scheme, width, p) for p in widths_problems(page)]
        found += [(scheme, width, v) for v in violations(page)]
        page.screenshot(path=str(SHOTS / f"round5-run-now-{scheme}-{width}.png"), full_page=True)
    assert not found, "\n".join(map(str, found))


def test_a_card_of_one_class_says_not_measurable(
    open_session: Callable[..., Session], make_user: Callable[..., Any]
) -> None:
    session = open_session(role="admin", name="ada")
    project = create_project(None, name="production labels")
    people = [make_user("annotator", "ann-1")]
    for row in (CLAIMS[0], CLAIMS[4]):  # both labelled supported
        _label(project, people, active_verifier.active().verifier_id, row)
    found: list[tuple[str, int, object]] = []
    for scheme, width in LOOKS:
        _look(session, scheme, width)
        session.goto("/verifiers/")
        card = session.page.locator("#team-accuracy")
        assert "not measurable: all labels are supported" in card.inner_text()
        found += [(scheme, width, p) for p in widths_problems(session.page)]
        found += [(scheme, width, v) for v in violations(session.page)]
        card.screenshot(path=str(SHOTS / f"round5-one-class-{scheme}-{width}.png"))
    assert not found, "\n".join(map(str, found))
