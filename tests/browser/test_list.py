"""The reviews list in a browser: live search through htmx, and delete asks first."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from grounding_app.reviews.models import Review
from tests.browser.conftest import Session
from tests.reviews.conftest import fixture_text

pytestmark = pytest.mark.django_db(transaction=True)


def test_search_filters_as_you_type_and_delete_asks_first(
    open_session: Callable[..., Session],
) -> None:
    session = open_session()
    page = session.page
    for name in ("gemini_web_search.json", "agent_session_output.json"):
        session.goto("/reviews/import/")
        page.fill("#id_payload", fixture_text(name))
        page.get_by_role("button", name="Import").click()
        page.wait_for_selector("#result .review")

    session.goto("/reviews/")
    assert page.locator(".reviews-table tbody tr").count() == 2
    page.fill("#id_q", "hubble")
    page.wait_for_url("**/reviews/?*q=hubble*")
    assert page.locator(".reviews-table tbody tr").count() == 1
    assert "Hubble" in page.locator(".excerpt").inner_text()
    page.select_option("#id_summary", "supported")
    page.wait_for_selector("text=No reviews match these filters.")

    session.goto("/reviews/")
    page.locator(".reviews-table").get_by_role("button", name="Delete").first.click()
    assert session.dialogs == ["Delete this review for good?"]  # dismissed: nothing deleted
    assert Review.objects.count() == 2
