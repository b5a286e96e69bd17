"""Second opinions and source policies in Debian's chromium; the labeling page of a
Gemini web-search item (no made-up verdict, Search Suggestions beside the answer); and
their screenshots in docs/ (slow: `-m slow`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Frame, expect

from grounding_app.active_verifier.checker import checker
from grounding_app.annotations.items import create_project, import_jsonl
from grounding_app.engine import GroundingEngine
from grounding_app.policies.models import SourcePolicy
from grounding_app.policies.services import attach_to_project, attach_to_review
from grounding_app.reviews import services as review_services
from grounding_app.reviews.models import Review
from tests.browser.conftest import Session
from tests.browser.shots import fits, shows
from tests.browser.test_annotate import watch_console
from tests.reviews.conftest import fixture_text

pytestmark = pytest.mark.django_db(transaction=True)

IMG = Path(__file__).resolve().parents[2] / "docs" / "img"
REDIRECT = "https://vertexaisearch.cloud.google.com/grounding-api-redirect/"

ANSWER = (
    "Employees may work remotely up to three days per week. "
    "Full-time remote work needs no approval from anyone. "
    "The policy was last updated in March 2024."
)


def _segment(text: str, chunks: list[int], scores: list[float]) -> dict[str, Any]:
    start = len(ANSWER[: ANSWER.index(text)].encode())
    return {
        "segment": {"startIndex": start, "endIndex": start + len(text.encode()), "text": text},
        "groundingChunkIndices": chunks,
        "confidenceScores": scores,
    }


def mixed_gemini() -> str:
    """Gemini grounded on two documents with text and one web page without: one segment
    Gemini and we agree on, one Gemini is sure of and the text contradicts, one nobody
    can check here."""
    web = json.loads(fixture_text("gemini_web_search.json"))
    widget = web["candidates"][0]["groundingMetadata"]["searchEntryPoint"]
    sentences = ANSWER.split(". ")
    response = {
        "candidates": [
            {
                "content": {"role": "model", "parts": [{"text": ANSWER}]},
                "groundingMetadata": {
                    "webSearchQueries": ["remote work policy approval"],
                    "searchEntryPoint": widget,
                    "groundingChunks": [
                        {
                            "retrievedContext": {
                                "uri": "https://intranet.example/hr/remote-work",
                                "title": "Remote Work Policy 2024",
                                "text": "Section 2.1: Eligible employees may work remotely "
                                "for up to three (3) days in each calendar week.",
                            }
                        },
                        {
                            "retrievedContext": {
                                "uri": "https://intranet.example/hr/remote-work#2.4",
                                "title": "Remote Work Policy 2024",
                                "text": "Section 2.4: Full-time remote arrangements require "
                                "written approval by a director or above.",
                            }
                        },
                        {
                            "web": {
                                "uri": REDIRECT + "AUZIYQE8",
                                "title": "hr-news.example",
                                "domain": "hr-news.example",
                            }
                        },
                    ],
                    "groundingSupports": [
                        _segment(sentences[0] + ".", [0], [0.97]),
                        _segment(sentences[1] + ".", [1], [0.91]),
                        _segment(sentences[2], [2], [0.88]),
                    ],
                },
            }
        ]
    }
    return json.dumps(response)


def import_review(session: Session, payload: str) -> str:
    session.goto("/reviews/import/")
    session.page.fill("#id_payload", payload)
    session.page.get_by_role("button", name="Import").click()
    session.page.wait_for_selector("#result .review")
    return session.page.url.removeprefix(session.base)


def test_second_opinion_on_a_gemini_answer(
    open_session: Callable[..., Session], fake_engine: GroundingEngine
) -> None:
    session = open_session()
    page = session.page
    problems = watch_console(page)
    import_review(session, mixed_gemini())
    table = page.locator("#second-opinion-0")
    expect(table).to_be_visible()
    rows = table.locator("tbody tr")
    expect(rows).to_have_count(3)
    expect(rows.nth(0).locator("td.score")).to_have_text(
        re.compile(r"^Gemini 0\.97 / ours \d\.\d\d$")
    )
    web = rows.nth(2)
    expect(web).to_have_attribute("data-status", "not_checkable")
    expect(web).to_contain_text("not checkable: no source text")
    expect(web).not_to_contain_text("0.00")
    # The segment number leads to the claim's row in the claims table.
    rows.nth(1).locator("a").click()
    assert page.url.endswith("#c0-claim-2")
    assert problems == []
    session.no_xss()


def test_second_opinion_without_javascript(
    open_session: Callable[..., Session], fake_engine: GroundingEngine
) -> None:
    session = open_session()
    review = review_services.import_and_save(session.user, mixed_gemini())
    plain = open_session(javascript=False, name="nojs")
    plain.goto(review.get_absolute_url())
    page = plain.page
    page.get_by_role("link", name="Run our verifier on the cited sources").click()
    expect(page.locator("#second-opinion-0 tbody tr")).to_have_count(3)
    assert page.url.endswith("#second-opinion-0")
    plain.no_xss()


def test_write_a_policy_and_check_a_review_against_it(
    open_session: Callable[..., Session], fake_engine: GroundingEngine
) -> None:
    session = open_session()
    page = session.page
    problems = watch_console(page)
    review_url = import_review(session, fixture_text("agent_session_output.json"))

    session.goto("/policies/new/")
    page.fill("#id_name", "Space desk")
    page.fill("#id_excluded", "Wikipedia.org\nnotnasa.gov")
    page.fill("#id_preferred", "nasa.gov")
    page.fill(
        "#id_context",
        "https://science.nasa.gov/mission/hubble/overview/\nhttps://hubblesite.org/mission",
    )
    page.fill("#id_text_prompt", "Prefer primary sources.")
    page.get_by_role("button", name="Create policy").click()
    expect(page.locator(".messages")).to_contain_text("Space desk")
    expect(page.locator(".tool-json")).to_contain_text('"excludeDomains"')

    # A bad entry is refused with its line, and nothing changes.
    page.fill("#id_excluded", "wikipedia.org\nhttps://bad.example/")
    page.get_by_role("button", name="Save policy").click()
    expect(page.locator(".errors").first).to_contain_text("Line 2")
    assert SourcePolicy.objects.get().excluded_domains == ["wikipedia.org", "notnasa.gov"]

    session.goto(review_url)
    page.select_option("#source-policy select", label="Space desk")
    page.get_by_role("button", name="Check against it").click()
    card = page.locator("#source-policy")
    expect(card).to_contain_text("1 source from excluded domains")
    sources = card.locator(".policy-source")
    expect(sources).to_have_count(3)
    expect(sources.nth(0)).to_have_attribute("data-status", "context")  # context beats preferred
    expect(sources.nth(1)).to_have_attribute("data-status", "other")  # esa.int
    expect(sources.nth(2)).to_have_attribute("data-status", "excluded")
    expect(sources.nth(2)).to_contain_text("Excluded domain (wikipedia.org)")
    expect(card.locator(".policy-context li")).to_have_count(2)
    expect(card.locator(".policy-context li").nth(1)).to_contain_text("never cited")
    sources.nth(2).locator("a.source-num").click()
    assert page.url.endswith("#c0-src-3")
    assert problems == []
    session.no_xss()


def gemini_item_assignment(lead: Any, annotator: Any) -> Any:
    project = create_project(lead, name="Gemini web answers", annotators=[annotator])
    line = json.dumps(json.loads(fixture_text("gemini_web_search.json")))
    import_jsonl(project, line + "\n")
    policy = SourcePolicy.objects.create(
        name="Sports desk", excluded_domains=["aljazeera.com"], preferred_domains=["uefa.com"]
    )
    attach_to_project(project, policy, lead)
    return project


def suggestions_frame(session: Session) -> Frame:
    frame = session.page.wait_for_selector("iframe.suggestions-frame").content_frame()
    assert frame is not None
    frame.wait_for_load_state()
    return frame


def test_labeling_a_gemini_web_item(
    open_session: Callable[..., Session],
    make_user: Callable[..., Any],
    fake_engine: GroundingEngine,
) -> None:
    session = open_session(role="annotator", name="ann")
    project = gemini_item_assignment(make_user("reviewer", "lead"), session.user)
    page = session.page
    problems = watch_console(page)
    session.goto(project.get_absolute_url())
    page.get_by_role("button", name="Start labeling").click()
    page.wait_for_selector(".claim-card.is-focused")
    verdicts = page.locator(".model-verdict")
    expect(verdicts).to_have_count(2)
    expect(verdicts.first).to_have_text("Not checkable: no source text")
    expect(page.locator(".labeler-main")).not_to_contain_text("Unsupported 0.00")
    expect(page.locator(".fact-no-text")).to_have_count(3)
    expect(page.locator("#fact-1 .fact-policy")).to_contain_text("Preferred (uefa.com)")
    expect(page.locator("#fact-2 .fact-policy")).to_contain_text("Excluded domain (aljazeera.com)")
    frame = suggestions_frame(session)
    expect(frame.locator("a.chip")).to_have_count(2)
    frame_box = page.locator("iframe.suggestions-frame").bounding_box()
    answer_box = page.locator(".labeler-answer").bounding_box()
    assert frame_box is not None and answer_box is not None
    assert frame_box["width"] >= answer_box["width"]  # at least as wide as the answer
    # Keyboard labeling still works beside the widget.
    page.keyboard.press("1")
    expect(page.locator("#claim-1 input[value='supported']")).to_be_checked()
    assert problems == []
    session.no_xss()


# --- Screenshots for the README ----------------------------------------------------------


@pytest.mark.slow
def test_screenshots(open_session: Callable[..., Session], make_user: Callable[..., Any]) -> None:
    """With the real verifier, so the numbers in docs/ are what people will see."""
    IMG.mkdir(exist_ok=True)
    checker().engine()  # load the model here, not inside the first page's request
    session = open_session(name="rina")
    page = session.page
    page.set_default_timeout(60_000)  # the verifier shares two cores with everything else
    page.set_viewport_size({"width": 1360, "height": 900})
    url = import_review(session, mixed_gemini())
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        session.goto(url)
        page.locator("#second-opinion-0 tbody tr").first.wait_for()
        page.locator("#second-opinion-0").scroll_into_view_if_needed()
        page.wait_for_timeout(300)
        # Gemini's score beside ours per segment, and the web page nobody can check here.
        rows = page.locator("#second-opinion-0 tbody tr")
        expect(rows).to_have_count(3)
        shows(rows.nth(0), "Gemini 0.97 / ours")
        shows(rows.nth(2), "not checkable: no source text")
        fits(page)
        page.locator("#second-opinion-0").screenshot(path=str(IMG / f"second-opinion-{scheme}.png"))

    page.emulate_media(color_scheme="light")
    agent_url = import_review(session, fixture_text("agent_session_output.json"))
    policy = SourcePolicy.objects.create(
        name="Space desk",
        description="Primary sources for space missions; no encyclopedias.",
        excluded_domains=["wikipedia.org"],
        preferred_domains=["nasa.gov", "esa.int"],
        context_urls=[
            "https://science.nasa.gov/mission/hubble/overview/",
            "https://hubblesite.org/mission-and-telescope",
        ],
        text_prompt="Prefer primary sources from space agencies.",
    )
    review = Review.objects.get(public_id=agent_url.split("/")[-2])
    attach_to_review(review, policy, session.user)
    session.goto(agent_url)
    page.locator("#second-opinion-0 tbody tr").first.wait_for()
    page.wait_for_timeout(300)
    # The policy's verdict on each cited source: context, other, and excluded with why.
    card = page.locator("#source-policy")
    shows(card, "Checked against Space desk", "1 source from excluded domains", "never cited")
    statuses = card.locator(".policy-source").evaluate_all(
        "(sources) => sources.map((s) => s.dataset.status)"
    )
    assert statuses == ["context", "preferred", "excluded"]
    fits(page)
    page.locator("#source-policy").screenshot(path=str(IMG / "source-policy.png"))
    page.screenshot(path=str(IMG / "review-sources.png"), full_page=True)
    session.goto(policy.get_absolute_url())
    page.wait_for_timeout(300)
    expect(page.locator("#id_name")).to_have_value("Space desk")
    expect(page.locator("#id_excluded")).to_have_value("wikipedia.org")
    fits(page)
    page.screenshot(path=str(IMG / "policy-edit.png"), full_page=True)
    session.no_xss()

    labeler = open_session(role="annotator", name="ann")
    project = gemini_item_assignment(make_user("reviewer", "lead"), labeler.user)
    lpage = labeler.page
    lpage.set_viewport_size({"width": 1360, "height": 1000})
    lpage.emulate_media(color_scheme="light")
    labeler.goto(project.get_absolute_url())
    lpage.get_by_role("button", name="Start labeling").click()
    lpage.wait_for_selector(".claim-card.is-focused")
    frame = suggestions_frame(labeler)
    lpage.wait_for_timeout(400)
    # A web-grounded item being labeled: its claims, and Google's suggestions widget.
    expect(lpage.locator("iframe.suggestions-frame")).to_be_visible()
    expect(frame.locator("body")).not_to_be_empty()
    expect(lpage.locator(".claim-card.is-focused")).to_be_visible()
    fits(lpage)
    lpage.screenshot(path=str(IMG / "label-gemini.png"))
    labeler.no_xss()
