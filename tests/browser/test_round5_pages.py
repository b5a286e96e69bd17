"""Issue 44's pages in chromium: an answer holding a wide code block or a Hebrew list
whose items start with Latin words, on the review page, the labeling item and the batch
job's lines, at a phone's, a tablet's and a desktop's width, light and dark."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from grounding_app.annotations.allocation import next_assignment
from grounding_app.annotations.items import create_project, import_jsonl, send_review
from grounding_app.annotations.labels import ClaimState, submit
from grounding_app.batch import intake as batch_intake
from grounding_app.batch import running as batch_running
from grounding_app.engine import CheckRequest, Fact, GroundingEngine
from grounding_app.reviews import services as review_services
from tests.browser.conftest import Session
from tests.browser.test_axe import violations
from tests.browser.test_widths import SCHEMES, WIDTHS, widths_problems

pytestmark = pytest.mark.django_db(transaction=True)

SHOTS = Path(__file__).resolve().parents[2] / "var" / "screens" / "round5"

# One line of code about 550 px wide in the page's monospace font: wider than a phone.
CODE_ANSWER = (
    "Install the client first.\n\n"
    "```python\n"
    "client = GroundingClient(endpoint='https://grounding.example/v1', timeout=30, retries=3)\n"
    "```\n\n"
    "Then call check with the answer and its facts."
)
CODE_FACT = "Install the client first, then call check with the answer and its facts."
# A Hebrew answer whose list items start with Latin words but are Hebrew sentences.
HEBREW_ANSWER = (
    "## שפות תכנות\n\n"
    "- Python היא שפת תכנות פופולרית מאוד בקרב מדעני נתונים.\n"
    "- JavaScript רצה בכל דפדפן אינטרנט מודרני.\n"
    "- Rust is a systems programming language."
)
HEBREW_FACT = "Python היא שפת תכנות פופולרית מאוד בקרב מדעני נתונים."


# A project's instructions in Markdown, with a code line as wide as the answer's.
INSTRUCTIONS = (
    "Label **each** claim against the facts only:\n\n"
    "1. code is never a claim;\n2. a *Hebrew* item is read right to left.\n\n"
    "```\nclient = GroundingClient(endpoint='https://grounding.example/v1', timeout=30)\n```"
)


def _pages(user: Any) -> dict[str, str]:
    """A review, a labeling item and a batch job, each showing both answers; the labeling
    project's page and its agreement page, with instructions in Markdown."""
    code = review_services.check_and_save(user, CheckRequest(CODE_ANSWER, (Fact(CODE_FACT),)))
    hebrew = review_services.check_and_save(user, CheckRequest(HEBREW_ANSWER, (Fact(HEBREW_FACT),)))
    labeled = {}
    for name, review in (("code", code), ("hebrew", hebrew)):
        project = create_project(
            user,
            name=f"Round 5 {name}",
            annotators=[user],
            overlap=1,
            extra_labels=("Partially supported",),
            instructions=INSTRUCTIONS,
        )
        send_review(project, review)
        assignment = next_assignment(project, user)
        assert assignment is not None
        labeled[name] = f"/annotations/label/{assignment.pk}/"
        labeled[f"{name} project"] = project.get_absolute_url()
    lines = [
        {"id": "code", "facts": [{"text": CODE_FACT}], "claim": CODE_ANSWER},
        {"id": "hebrew", "facts": [{"text": HEBREW_FACT}], "claim": HEBREW_ANSWER},
    ]
    job = batch_intake.create_job(
        "\n".join(json.dumps(line) for line in lines).encode(), name="round5.jsonl", send=False
    )
    for chunk in job.chunks.all():
        batch_running.run_chunk(chunk.pk, worker="test")
    return {
        "review code": code.get_absolute_url(),
        "review hebrew": hebrew.get_absolute_url(),
        "label code": labeled["code"],
        "label hebrew": labeled["hebrew"],
        "batch": job.get_absolute_url(),
        "project": labeled["code project"],
        "agreement": labeled["code project"] + "agreement/",
    }


def test_answers_with_wide_code_never_scroll_the_page(
    open_session: Callable[..., Session], fake_engine: GroundingEngine
) -> None:
    session = open_session(role="superuser", name="cody")
    pages = _pages(session.user)
    page = session.page
    found: list[str] = []
    for scheme in SCHEMES:
        for width in WIDTHS:
            page.emulate_media(color_scheme=scheme)
            page.set_viewport_size({"width": width, "height": 900})
            for name, path in pages.items():
                session.goto(path)
                page.wait_for_load_state("networkidle")
                found += [f"{name} at {width} ({scheme}): {p}" for p in widths_problems(page)]
    assert not found, "\n".join(found)
    session.no_xss()


def test_the_label_buttons_wrap_and_the_code_scrolls_in_its_box_on_a_phone(
    open_session: Callable[..., Session], fake_engine: GroundingEngine
) -> None:
    session = open_session(role="superuser", name="lola")
    page = session.page
    page.set_viewport_size({"width": 375, "height": 900})
    session.goto(_pages(session.user)["label code"])
    code = page.locator(".labeler-answer pre").first
    expect(code).to_be_visible()
    scroll, client = code.evaluate("(box) => [box.scrollWidth, box.clientWidth]")
    assert scroll > client, "the code line fits: the test shows nothing"
    for name in ("No check needed", "Partially supported", "Supported", "Unsupported"):
        for button in page.locator(".label-option", has_text=name).all():
            box = button.bounding_box()
            assert box and box["x"] >= 0 and box["x"] + box["width"] <= 375, (name, box)


# Each list item's computed direction and where its text starts (the first line's
# bounding box edge inside the item).
ITEM_DIRECTIONS = """(root) => [...root.querySelectorAll('li')].map((li) => {
  const range = document.createRange();
  range.selectNodeContents(li);
  const rects = [...range.getClientRects()];
  const box = li.getBoundingClientRect();
  const first = rects[0];
  return {dir: getComputedStyle(li).direction, text: li.innerText.slice(0, 12),
          right: Math.round(box.right - first.right), left: Math.round(first.left - box.left)};
})"""


@pytest.mark.parametrize("where", ["review hebrew", "label hebrew"])
def test_a_hebrew_list_item_starting_with_a_latin_word_stays_right_to_left(
    open_session: Callable[..., Session], fake_engine: GroundingEngine, where: str
) -> None:
    session = open_session(role="superuser", name="hadas")
    pages = _pages(session.user)
    page = session.page
    page.set_viewport_size({"width": 375, "height": 900})
    session.goto(pages[where])
    answer = page.locator(".answer-md").first
    expect(answer.locator("li").first).to_be_visible()
    items = answer.evaluate(ITEM_DIRECTIONS)
    assert [item["dir"] for item in items] == ["rtl", "rtl", "ltr"], items
    # The Hebrew items begin at the right edge, as the lines around them do.
    assert items[0]["right"] <= 2 and items[1]["right"] <= 2, items
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{where.replace(' ', '-')}-375.png"), full_page=True)


def test_round5_pages_have_no_serious_accessibility_violation(
    open_session: Callable[..., Session], fake_engine: GroundingEngine
) -> None:
    session = open_session(role="superuser", name="axel")
    pages = _pages(session.user)
    page = session.page
    found = []
    for scheme, width in (("light", 1280), ("dark", 375)):
        page.emulate_media(color_scheme=scheme)
        page.set_viewport_size({"width": width, "height": 900})
        for name, path in pages.items():
            session.goto(path)
            found += [(name, scheme, width, v) for v in violations(page)]
    assert found == []


def test_the_agreement_figures_follow_a_recorded_final_label(
    open_session: Callable[..., Session], fake_engine: GroundingEngine, make_user: Any
) -> None:
    session = open_session(role="superuser", name="ada")
    annotators = [make_user("annotator", name) for name in ("ann", "bob")]
    project = create_project(session.user, name="Disputed", overlap=2, annotators=annotators)
    line = {"id": "x", "facts": [{"text": CODE_FACT}], "claim": "Install the client first."}
    import_jsonl(project, json.dumps(line) + "\n")
    for user, label in zip(annotators, ("supported", "unsupported"), strict=True):
        assignment = next_assignment(project, user)
        assert assignment is not None
        submit(assignment, {c.pk: ClaimState(label) for c in assignment.item.claims.all()})
    page = session.page
    session.goto(f"/annotations/{project.pk}/agreement/")
    tile = page.locator(".stat", has_text="Disagreements").locator(".stat-value")
    expect(tile).to_have_text("1 / 1")
    page.locator(".adjudicate select").select_option("unsupported")
    page.locator(".adjudicate").get_by_role("button", name="Record").click()
    expect(page.locator(".final-note")).to_contain_text("Saved")
    # No reload: the figures above fetched themselves again.
    expect(tile).to_have_text("0 / 1")
    session.no_xss()


SCROLL_MARKS = """(box) => [box.className, getComputedStyle(box).maskImage,
                                box.scrollWidth > box.clientWidth]"""


def test_a_box_that_scrolls_sideways_fades_its_cut_edge(
    open_session: Callable[..., Session], fake_engine: GroundingEngine
) -> None:
    session = open_session(role="superuser", name="fay")
    pages = _pages(session.user)
    page = session.page
    page.set_viewport_size({"width": 375, "height": 900})
    session.goto(pages["batch"])
    box = page.locator("section[aria-label='Worst answers'] .table-scroll")
    classes, mask, overflows = box.evaluate(SCROLL_MARKS)
    assert overflows and "has-more-end" in classes and "has-more-start" not in classes
    assert mask.startswith("linear-gradient"), mask
    box.evaluate("(box) => { box.scrollLeft = box.scrollWidth; }")
    expect(box).to_have_class(re.compile(r"\bhas-more-start\b"))
    expect(box).not_to_have_class(re.compile(r"\bhas-more-end\b"))
    # The code block of an answer says so too; on a desktop nothing overflows or fades.
    session.goto(pages["review code"])
    expect(page.locator(".answer-md pre").first).to_have_class(re.compile(r"\bhas-more-end\b"))
    page.set_viewport_size({"width": 1280, "height": 900})
    session.goto(pages["batch"])
    classes, mask, overflows = box.evaluate(SCROLL_MARKS)
    assert not overflows and "has-more" not in classes and mask == "none"


def test_the_histogram_is_drawn_for_a_phone(
    open_session: Callable[..., Session], fake_engine: GroundingEngine
) -> None:
    session = open_session(role="superuser", name="hal")
    path = _pages(session.user)["batch"]
    page = session.page
    for width, least in ((375, 9.0), (1280, 10.0)):
        page.set_viewport_size({"width": width, "height": 900})
        session.goto(path)
        charts = page.locator("#results svg.chart:visible")
        expect(charts).to_have_count(1)
        # The score labels' height on screen, in px.
        heights = charts.evaluate(
            "(svg) => [...svg.querySelectorAll('.chart-tick')]"
            ".map((t) => t.getBoundingClientRect().height)"
        )
        assert min(heights) >= least, (width, heights)


@pytest.mark.slow
def test_round5_screenshots(
    open_session: Callable[..., Session], fake_engine: GroundingEngine
) -> None:
    """var/screens/round5/*.png: every page this round changed at 375, 768 and 1280 px,
    light and dark, to be looked at."""
    session = open_session(role="superuser", name="sam")
    pages = _pages(session.user)
    page = session.page
    SHOTS.mkdir(parents=True, exist_ok=True)
    for scheme in SCHEMES:
        for width in WIDTHS:
            page.emulate_media(color_scheme=scheme)
            page.set_viewport_size({"width": width, "height": 900})
            for name, path in pages.items():
                session.goto(path)
                page.wait_for_load_state("networkidle")
                page.wait_for_timeout(300)  # colour transitions end
                shot = SHOTS / f"{name.replace(' ', '-')}-{scheme}-{width}.png"
                page.screenshot(path=str(shot), full_page=True)
