"""Review round 3 (issue 25) in chromium: a second opinion that disagrees is flagged on
the claim in the answer and in its row, once its table arrives by htmx."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from grounding_app.batch import intake as batch_intake
from grounding_app.engine import CheckRequest, Fact, GroundingEngine
from grounding_app.policies.models import SourcePolicy
from grounding_app.reviews import services as review_services
from grounding_app.reviews.models import Review, ReviewerVerdict
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


def _title_in_view_and_focused(page: Page) -> None:
    assert page.evaluate("() => document.activeElement.classList.contains('review-title')")
    top = page.evaluate(
        "() => document.querySelector('#result .review-title').getBoundingClientRect().top"
    )
    assert 0 <= top < page.viewport_size["height"] / 2


def test_an_import_comes_into_view_and_its_json_is_cleared(
    open_session: Callable[..., Session], fake_engine: GroundingEngine
) -> None:
    session = open_session()
    page = session.page
    page.set_viewport_size({"width": 1280, "height": 700})
    import_review(session, mixed_gemini())
    _title_in_view_and_focused(page)
    assert page.input_value("#id_payload") == ""
    # A second click imports nothing twice: the form says the box is empty.
    page.get_by_role("button", name="Import").click()
    page.wait_for_selector("#review-form .errors")
    assert Review.objects.count() == 1
    session.no_xss()


def test_a_checked_answer_comes_into_view(
    open_session: Callable[..., Session], fake_engine: GroundingEngine
) -> None:
    session = open_session()
    page = session.page
    page.set_viewport_size({"width": 1280, "height": 700})
    session.goto("/reviews/new/")
    page.fill("#id_answer", "Titanic was directed by James Cameron.")
    page.fill("#fact-0-text", "Titanic was directed by James Cameron.")
    page.get_by_role("button", name="Check answer").click()
    page.wait_for_selector("#result .review")
    _title_in_view_and_focused(page)
    assert page.input_value("#id_answer") != ""  # a new review keeps its answer to edit


# Width of a select's longest option in its own font, against the select's inner width.
OPTION_FITS = """(select) => {
  const style = getComputedStyle(select);
  const context = document.createElement('canvas').getContext('2d');
  context.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
  const widest = Math.max(...[...select.options].map((o) => context.measureText(o.text).width));
  return [widest, select.clientWidth];
}"""


def test_the_batch_form_shows_whole_policy_names_and_cancel_asks_first(
    open_session: Callable[..., Session],
) -> None:
    SourcePolicy.objects.create(name="Intranet only, no news sites")
    session = open_session()
    page = session.page
    for width in (375, 1280):
        page.set_viewport_size({"width": width, "height": 800})
        session.goto("/batch/")
        widest, inner = page.locator("#id_source_policy").evaluate(OPTION_FITS)
        assert widest + 16 <= inner, (width, widest, inner)  # room for the arrow too
    job = batch_intake.create_job(
        b'{"claim": "x", "facts": []}\n', user=session.user, send=False
    )  # the owner is offered Cancel (the ownership rule, issue 32)
    session.goto(job.get_absolute_url())
    page.get_by_role("button", name="Cancel job").click()
    assert session.dialogs == [
        "Cancel this job? Lines not yet checked are dropped; those checked are kept."
    ]
    job.refresh_from_db()
    assert job.active  # the dialog was dismissed: nothing was cancelled


FACT = "Titanic was directed by James Cameron."
SPLIT = "Titanic was made by **Steven Spielberg** in [Paris](https://example.org) in 1975."


def test_keys_ring_the_whole_claim_and_open_the_reviewers_verdict(
    open_session: Callable[..., Session], fake_engine: GroundingEngine
) -> None:
    session = open_session()
    page = session.page
    review = review_services.check_and_save(
        session.user,
        CheckRequest(f"Titanic was directed by James Cameron. {SPLIT}", (Fact(FACT),)),
    )
    session.goto(review.get_absolute_url())
    page.keyboard.press("j")
    fragments = page.locator(".answer [data-claims='c0-claim-2']")
    assert fragments.count() >= 3  # split by the bold text and the link
    styles = fragments.evaluate_all("(spans) => spans.map((s) => getComputedStyle(s).outlineStyle)")
    assert set(styles) == {"solid"}
    # v opens the verdict form of the focused claim; Enter on the verdict saves it.
    with page.expect_navigation():
        page.keyboard.press("v")
    select = page.locator(".verdict-form select[name='verdict']")
    expect(select).to_be_focused()
    select.select_option("supported")
    with page.expect_navigation():
        select.press("Enter")
    verdict = ReviewerVerdict.objects.get(review=review)
    assert (verdict.claim, verdict.verdict) == (2, "supported")
    session.no_xss()


def test_copy_buttons_copy_the_claim_the_link_and_the_api_example(
    open_session: Callable[..., Session], fake_engine: GroundingEngine
) -> None:
    session = open_session()
    page = session.page
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=session.base)
    review = review_services.check_and_save(session.user, CheckRequest(SPLIT, (Fact(FACT),)))
    session.goto(review.get_absolute_url())

    def clipboard() -> str:
        text: str = page.evaluate("() => navigator.clipboard.readText()")
        return text

    page.get_by_role("button", name="Copy claim 1").click()
    assert clipboard() == SPLIT  # the claim as written, Markdown and all
    page.get_by_role("button", name="Copy link").click()
    assert clipboard() == session.base + review.get_absolute_url()
    page.get_by_text("Check this answer from code").click()
    page.locator(".api-example").get_by_role("button", name="Copy").click()
    example = clipboard()
    assert example.startswith("curl -sS ") and "x-goog-api-key: $API_KEY" in example
    body = json.loads(example.split("<<'JSON'\n", 1)[1].rsplit("\nJSON", 1)[0])
    assert body["answerCandidate"] == SPLIT and body["facts"] == [
        {"factText": FACT, "attributes": {}}
    ]
    expect(page.locator(".api-example button.copy")).to_have_text("Copied")
