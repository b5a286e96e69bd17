"""Screenshots of a review page for the README, light and dark (slow: `-m slow`).

Writes docs/img/review-light.png and docs/img/review-dark.png (a checked answer with verdicts,
a cited source lit up by hovering its claim) and docs/img/review-gemini-{light,dark}.png
(an answer grounded by web search, with the Search Suggestions widget), each after
asserting that the page shows what the picture is for.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from grounding_app.engine import CheckRequest, CheckResponse, CitedChunk, Claim, Fact
from grounding_app.formats.from_check import grounded_from_check
from grounding_app.reviews import services
from grounding_app.reviews.models import Review
from tests.browser.conftest import Session
from tests.browser.shots import fits, lit, shows
from tests.reviews.conftest import fixture_text

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

IMG = Path(__file__).resolve().parents[2] / "docs" / "img"

FACTS = (
    Fact(
        "Titanic is a 1997 American epic romantic disaster movie. It was directed, written, "
        "and co-produced by James Cameron. The movie is about the 1912 sinking of the RMS "
        "Titanic. It stars Kate Winslet and Leonardo DiCaprio.",
        {"author": "Simple Wikipedia"},
    ),
    Fact(
        "The ill-fated maiden voyage of the R.M.S. Titanic ultimately carried over 1,500 "
        "people to their death in the ice cold waters of the North Atlantic.",
        {"author": "Rotten Tomatoes"},
    ),
)
SENTENCES = (
    ("Here is what I found.", False, (), None),
    ("Titanic was directed by James Cameron.", True, (0,), 0.99),
    ("It starred Brad Pitt and Kate Winslet.", True, (), 0.08),
    (
        "It was based on the sinking of the RMS Titanic that led to the death of 1500 people.",
        True,
        (1, 2),
        0.95,
    ),
)


def film_review(user: object) -> Review:
    """The SPEC's film example with the verdicts it describes (no engine run)."""
    answer = " ".join(s for s, *_ in SENTENCES)
    claims, at = [], 0
    for text, required, cited, score in SENTENCES:
        start = answer.index(text, at)
        at = start + len(text)
        claims.append(Claim(start, at, text, required, cited, score))
    chunks = (
        CitedChunk(
            "It was directed, written, and co-produced by James Cameron.",
            0,
            {"author": "Simple Wikipedia"},
        ),
        CitedChunk(
            "The movie is about the 1912 sinking of the RMS Titanic.",
            0,
            {"author": "Simple Wikipedia"},
        ),
        CitedChunk(FACTS[1].text, 1, {"author": "Rotten Tomatoes"}),
    )
    request = CheckRequest(answer, FACTS, 0.6, True)
    response = CheckResponse(tuple(claims), chunks, support_score=0.64)
    return services.save_review(
        user,
        grounded_from_check(request, response),
        source_format=Review.Format.MANUAL,
        request=request,
        engine_checked=True,
    )


def shoot(
    session: Session,
    url: str,
    name: str,
    shown: Callable[[Page], None],
    hover: str | None = None,
) -> None:
    page = session.page
    page.set_viewport_size({"width": 1360, "height": 860})
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        session.goto(url)
        if hover:
            page.locator(hover).hover()
        page.wait_for_timeout(300)  # let colour transitions finish
        shown(page)
        fits(page)
        page.screenshot(path=str(IMG / f"{name}-{scheme}.png"), full_page=True)
    session.no_xss()


def film_shown(page: Page) -> None:
    """The verdicts of the SPEC's film example, and the source the hovered claim cites lit."""
    shows(page.locator(".claim.v-unsupported").first, "Brad Pitt")
    assert page.locator(".claim.v-supported").count() >= 2
    lit(page.locator(".source.is-cited, .passage.is-cited").first)


def gemini_shown(page: Page) -> None:
    """The web search's answer with its Search Suggestions widget."""
    expect(page.locator("iframe.suggestions-frame")).to_be_visible()
    assert page.locator(".answer .claim").count() >= 1


def test_review_screenshots(open_session: Callable[..., Session]) -> None:
    IMG.mkdir(exist_ok=True)
    session = open_session(name="rina")
    review = film_review(session.user)
    shoot(session, review.get_absolute_url(), "review", film_shown, ".claim.v-supported >> nth=1")
    session.goto("/reviews/import/")
    session.page.fill("#id_payload", fixture_text("gemini_web_search.json"))
    session.page.get_by_role("button", name="Import").click()
    session.page.wait_for_selector("#result .review")
    shoot(session, session.page.url.removeprefix(session.base), "review-gemini", gemini_shown)
