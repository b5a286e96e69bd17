"""Review round 4 (issue 32, items 1-8) in chromium: the send form on a phone, struck
excluded citations, the labeling page's Markdown answer, the Group button beside its
dropdown."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import expect

from grounding_app.annotations import services as annotation_services
from grounding_app.engine import CheckRequest, Fact, GroundingEngine
from grounding_app.reviews import services as review_services
from tests.browser.conftest import Session
from tests.browser.pages import LONG_PROJECT, seed

pytestmark = pytest.mark.django_db(transaction=True)

MARKDOWN = (
    "**Titanic** was directed by [James Cameron](https://example.org/cameron). "
    "It was released in 1997. It won eleven Academy Awards. It starred Kate Winslet. "
    "It is about the sinking of the RMS Titanic in 1912. The ship sank in the North Atlantic."
)
FACT = "Titanic was directed by James Cameron and released in 1997. It stars Kate Winslet."


def _checked(session: Session) -> str:
    review = review_services.check_and_save(session.user, CheckRequest(MARKDOWN, (Fact(FACT),)))
    return review.get_absolute_url()


def test_the_send_form_wraps_and_shows_whole_project_names_on_a_phone(
    open_session: Callable[..., Session], fake_engine: GroundingEngine
) -> None:
    session = open_session(role="superuser", name="phoebe")
    annotation_services.create_project(session.user, name=LONG_PROJECT)
    page = session.page
    path = _checked(session)
    for width in (375, 768, 1280):
        page.set_viewport_size({"width": width, "height": 800})
        session.goto(path)
        assert page.evaluate("() => document.scrollingElement.scrollWidth") <= width
        form = page.locator("form.send-to-project")
        box = form.bounding_box()
        assert box and box["x"] + box["width"] <= width, (width, box)
        # The whole name is shown: no select cuts it, and its text box holds all of it.
        name = form.get_by_text(LONG_PROJECT)
        expect(name).to_be_visible()
        assert name.evaluate("(e) => e.scrollWidth <= e.clientWidth + 1 || e.tagName == 'BDI'")
        shown = name.bounding_box()
        assert shown and shown["x"] + shown["width"] <= box["x"] + box["width"] + 1


def test_an_excluded_citation_is_struck_through(
    open_session: Callable[..., Session], fake_engine: GroundingEngine
) -> None:
    session = open_session(role="superuser", name="xena")
    session.goto(seed(session.user, fake_engine)["review"])
    links = session.page.locator("sup.cite .cite-link.is-excluded")
    expect(links.first).to_be_visible()
    lines = links.evaluate_all(
        "(links) => links.map((a) => getComputedStyle(a).textDecorationLine)"
    )
    assert lines and set(lines) == {"line-through"}, lines


def test_the_labeling_answer_renders_markdown_and_shows_it_whole_on_a_phone(
    open_session: Callable[..., Session], fake_engine: GroundingEngine
) -> None:
    session = open_session(role="annotator", name="lena")
    project = annotation_services.create_project(
        session.user, name="Markdown answers", annotators=[session.user]
    )
    review = review_services.check_and_save(session.user, CheckRequest(MARKDOWN, (Fact(FACT),)))
    annotation_services.send_review(project, review)
    assignment = annotation_services.next_assignment(project, session.user)
    assert assignment is not None
    page = session.page
    page.set_viewport_size({"width": 375, "height": 800})
    session.goto(f"/annotations/label/{assignment.pk}/")
    answer = page.locator(".labeler-answer")
    expect(answer.locator("strong")).to_have_text("Titanic")
    expect(answer.locator("a[href='https://example.org/cameron']")).to_have_text("James Cameron")
    assert "**" not in answer.inner_text()
    # Every claim is still marked, and the keyboard moves through them.
    assert answer.locator(".ann-claim[data-claim-ref='1']").count() >= 2  # split by the tags
    page.keyboard.press("j")
    expect(answer.locator(".ann-claim[data-claim-ref='2']").first).to_have_class(
        "ann-claim is-focused"
    )
    # Nothing is cut: the box grows with its answer, or says it scrolls and takes focus.
    scroll, client = answer.evaluate("(box) => [box.scrollHeight, box.clientHeight]")
    if scroll > client + 1:
        assert answer.get_attribute("tabindex") == "0" and answer.get_attribute("aria-label")
    session.no_xss()


def test_the_group_button_sits_beside_its_dropdown(
    open_session: Callable[..., Session], fake_engine: GroundingEngine
) -> None:
    session = open_session(role="superuser", name="gus")
    path = seed(session.user, fake_engine)["batch detail"]
    page = session.page
    for width in (375, 1280):
        page.set_viewport_size({"width": width, "height": 800})
        session.goto(path)
        select = page.locator("select#by").bounding_box()
        button = page.get_by_role("button", name="Group").bounding_box()
        assert select and button
        assert button["y"] < select["y"] + select["height"], (width, select, button)


def test_the_new_review_form_warns_when_no_fact_is_given(
    open_session: Callable[..., Session], fake_engine: GroundingEngine
) -> None:
    session = open_session()
    page = session.page
    session.goto("/reviews/new/")
    warning = page.locator("#no-facts-warning")
    expect(warning).to_be_hidden()  # nothing written yet
    page.fill("#id_answer", "The moon is made of cheese.")
    expect(warning).to_be_visible()
    expect(warning).to_contain_text("No facts yet")
    page.fill("#fact-0-text", "The moon is made of rock.")
    expect(warning).to_be_hidden()
    session.no_xss()
