"""Review round 3 (issue 25) in chromium: a second opinion that disagrees is flagged on
the claim in the answer and in its row, once its table arrives by htmx."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import expect

from grounding_app.engine import GroundingEngine
from tests.browser.conftest import Session
from tests.browser.test_sources import import_review, mixed_gemini

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_disagreeing_second_opinion_is_flagged_on_the_claim(
    open_session: Callable[..., Session], fake_engine: GroundingEngine
) -> None:
    session = open_session()
    page = session.page
    path = import_review(session, mixed_gemini())
    expect(page.locator("#second-opinion-0 tbody tr")).to_have_count(3)
    flagged = page.locator(".answer [data-opinion='disagree']")
    expect(flagged).to_have_count(1)
    assert flagged.get_attribute("data-claims") == "c0-claim-2"
    expect(page.locator("#c0-claim-2 .opinion-flag")).to_have_text("second opinion disagrees")
    # From the cache on a fresh load, the same.
    session.goto(path)
    expect(page.locator(".answer [data-opinion='disagree']")).to_have_count(1)
    expect(page.locator(".claim-row .opinion-flag")).to_have_count(1)
    session.no_xss()
