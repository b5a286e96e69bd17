"""Review round 4 (issue 32, items 1-8) in chromium: the send form on a phone, struck
excluded citations, the labeling page's Markdown answer, the Group button beside its
dropdown."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import expect

from grounding_app.annotations.allocation import next_assignment
from grounding_app.annotations.items import create_project, send_review
from grounding_app.api.models import ApiKey
from grounding_app.batch import intake as batch_intake
from grounding_app.batch import running as batch_running
from grounding_app.batch.models import BatchChunk
from grounding_app.engine import CheckRequest, Fact, GroundingEngine
from grounding_app.reviews import services as review_services
from tests.batch.conftest import jsonl
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
    create_project(session.user, name=LONG_PROJECT)
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
    project = create_project(session.user, name="Markdown answers", annotators=[session.user])
    review = review_services.check_and_save(session.user, CheckRequest(MARKDOWN, (Fact(FACT),)))
    send_review(project, review)
    assignment = next_assignment(project, session.user)
    assert assignment is not None
    page = session.page
    page.set_viewport_size({"width": 375, "height": 800})
    session.goto(f"/annotations/label/{assignment.pk}/")
    answer = page.locator(".labeler-answer")
    expect(answer.locator("strong")).to_have_text("Titanic")
    expect(answer.locator("a[href='https://example.org/cameron']")).to_have_text("James Cameron")
    assert "**" not in answer.inner_text()
    # The claim cards read as the answer does, as on the review page.
    card = page.locator("#claim-1-text")
    expect(card.locator("strong")).to_have_text("Titanic")
    assert "**" not in card.inner_text() and "](" not in card.inner_text()
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


def test_a_running_jobs_figures_follow_its_progress(
    open_session: Callable[..., Session], fake_engine: GroundingEngine
) -> None:
    session = open_session()
    page = session.page
    job = batch_intake.create_job(jsonl(40), send=False)
    session.goto(job.get_absolute_url())
    expect(page.locator("#worst")).to_contain_text("No checked answers yet")
    batch_running.run_chunk(BatchChunk.objects.filter(job=job).order_by("pk")[0].pk)
    # The next poll brings the figures of the 20 lines checked: no reload, no contradiction.
    expect(page.locator("#worst").get_by_role("button", name="Open review").first).to_be_visible()
    expect(page.locator("#rates")).not_to_contain_text("No checked answers yet")
    assert page.locator("#results svg.chart:visible").count() == 1
    expect(page.locator("[data-stat='done']")).to_have_text("20")
    session.no_xss()


IMG = Path(__file__).resolve().parents[2] / "docs" / "img"


@pytest.mark.slow
def test_round4_screenshots(
    open_session: Callable[..., Session], fake_engine: GroundingEngine
) -> None:
    """docs/img/round4-*.png: the pages round 4 changed, at a phone's and a desktop's
    width, light and dark."""
    session = open_session(role="superuser", name="sasha")
    pages = seed(session.user, fake_engine)
    ApiKey.issue("OpenTelemetry traces")  # the Connect page then offers a test trace
    running = batch_intake.create_job(jsonl(40), name="running-job.jsonl", send=False)
    batch_running.run_chunk(BatchChunk.objects.filter(job=running).order_by("pk")[0].pk)
    labeled = create_project(session.user, name="Markdown answers", annotators=[session.user])
    review = review_services.check_and_save(session.user, CheckRequest(MARKDOWN, (Fact(FACT),)))
    send_review(labeled, review)
    assignment = next_assignment(labeled, session.user)
    assert assignment is not None
    shots = (
        ("review", pages["review"], 375, "light"),
        ("review", pages["review"], 375, "dark"),
        ("unsupported-only", pages["review unsupported only"], 1280, "dark"),
        ("label", f"/annotations/label/{assignment.pk}/", 375, "light"),
        ("label", f"/annotations/label/{assignment.pk}/", 1280, "dark"),
        ("batch-running", running.get_absolute_url(), 1280, "light"),
        ("batch-running", running.get_absolute_url(), 375, "dark"),
        ("connect", pages["connect"], 1280, "light"),
        ("connect", pages["connect"], 375, "dark"),
        ("label-studio", f"/annotations/{labeled.pk}/label-studio/", 1280, "light"),
        ("verifier", pages["verifier"], 1280, "dark"),
    )
    page = session.page
    IMG.mkdir(parents=True, exist_ok=True)
    for name, path, width, scheme in shots:
        page.emulate_media(color_scheme=scheme)
        page.set_viewport_size({"width": width, "height": 1400 if width < 800 else 1000})
        session.goto(path)
        page.wait_for_load_state("networkidle")
        page.wait_for_timeout(300)  # colour transitions end
        assert page.evaluate("() => document.scrollingElement.scrollWidth") <= width, name
        page.screenshot(path=str(IMG / f"round4-{name}-{scheme}-{width}.png"))
    page.emulate_media(color_scheme="light")
    page.set_viewport_size({"width": 375, "height": 900})
    session.goto("/reviews/new/")
    page.fill("#id_answer", "The moon is made of cheese.")
    page.wait_for_timeout(300)
    page.screenshot(path=str(IMG / "round4-new-review-warning-light-375.png"))
