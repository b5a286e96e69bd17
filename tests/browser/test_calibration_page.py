"""The Verifier page's calibration section in chromium: at 375 and 1280 px, light and
dark, the scopes' calibrations are read without sideways scrolling, a candidate whose
guard passed is applied with its button and shows in effect, a refused one says why.
Screenshots go to CALIBRATION_SHOTS when it is set (docs/img/ is drawn from them)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from grounding_app.active_verifier import services as active_verifier
from grounding_app.calibration import services as calibration
from grounding_app.calibration.models import Calibration, Scope
from tests.browser.conftest import Session
from tests.calibration.test_page import candidate

pytestmark = pytest.mark.django_db(transaction=True)

WIDE = "() => document.scrollingElement.scrollWidth - window.innerWidth"


def test_apply_a_candidate_at_phone_and_desktop_widths(open_session: Callable[..., Session]):
    verifier = active_verifier.active().verifier_id
    offered = candidate("support-bot-answers-for-the-billing-and-refunds-team", -1.5, verifier)
    candidate("faq", 0.0, verifier)
    candidate("tiny", -1.5, verifier, n=20)
    session = open_session(role="admin", name="ada-admin")
    page = session.page
    shots = os.environ.get("CALIBRATION_SHOTS")
    for width in (375, 1280):
        page.set_viewport_size({"width": width, "height": 900})
        session.goto("/verifiers/#calibration")
        section = page.locator("#calibration")
        assert section.is_visible()
        for scheme in ("light", "dark"):
            page.emulate_media(color_scheme=scheme)
            assert page.evaluate(WIDE) <= 0, f"sideways scroll at {width} px"
            if shots:
                Path(shots).mkdir(parents=True, exist_ok=True)
                section.screenshot(path=f"{shots}/calibration-{width}-{scheme}.png")
        apply = page.get_by_role("button", name="Apply to this grounding config")
        assert apply.count() == 1 and apply.is_visible()
        assert section.get_by_text("does not lie above zero").is_visible()
        assert section.get_by_text("8 of each class, are needed").is_visible()
    page.emulate_media(color_scheme="light")
    with page.expect_navigation():
        page.get_by_role("button", name="Apply to this grounding config").click()
    assert "applies to support-bot" in page.inner_text(".messages")
    applied = page.locator(
        f"article[data-calibration='{Calibration.objects.get(pk=offered.pk).name}']"
    )
    assert applied.locator(".tag", has_text="in effect").is_visible()
    assert page.get_by_role("button", name="Undo: back to the verifier's own scale").is_visible()
    # The trends of every job mark the day a batch label's scale changed (a config's
    # checks are the API's, which trends do not count), readable on a phone.
    labelled = candidate("team=billing-and-refunds-for-enterprise-customers", -1.5, verifier)
    labelled.kind = Scope.LABEL
    labelled.save()
    calibration.apply(labelled, session.user)
    for width in (375, 1280):
        page.set_viewport_size({"width": width, "height": 900})
        session.goto("/monitoring/")
        marks = page.locator("[data-scale-changes]")
        assert marks.is_visible() and "applied by ada-admin" in marks.inner_text()
        assert page.locator("tr[data-scale-changed] .tag").is_visible()
        assert page.evaluate(WIDE) <= 0, f"sideways scroll at {width} px"
        if shots:
            page.locator("#figures").screenshot(path=f"{shots}/trends-marks-{width}.png")
    session.no_xss()
