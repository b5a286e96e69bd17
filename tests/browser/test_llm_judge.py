"""The LLM judge's marks in Debian's chromium: beside each claim it decided or fell back on,
in an English and a right-to-left (Hebrew) answer, on the claim's row and in the summary
line; never over the claim's text, on the line where the claim ends, readable in light
and dark mode, and at a phone's 375 px without widening the page.

The slow test writes docs/img/llm-judge-review-{light,dark,375}.png (`-m slow`; the
narrow one down to the claims table)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Page

from tests.browser.conftest import Session
from tests.browser.test_word_matching import readable
from tests.reviews.llm_judge_data import ENGLISH, HEBREW, llm_judged_review

pytestmark = pytest.mark.django_db(transaction=True)

IMG = Path(__file__).resolve().parents[2] / "docs" / "img"

# Per answer mark: its box, its claim's last line box, and whether they overlap.
MARKS = """(root) => [...root.querySelectorAll(".claim-unit")].filter(
  (unit) => unit.querySelector(".llm-mark")
).map((unit) => {
  const mark = unit.querySelector(".llm-mark").getBoundingClientRect();
  const text = [...unit.querySelector(".claim").getClientRects()];
  const overlaps = text.some((r) => r.left < mark.right - 1 && mark.left < r.right - 1
    && r.top < mark.bottom - 1 && mark.top < r.bottom - 1);
  const last = text[text.length - 1];
  return {width: mark.width, height: mark.height, top: mark.top, bottom: mark.bottom,
          lastTop: last.top, lastBottom: last.bottom, overlaps,
          text: unit.querySelector(".llm-mark").textContent,
          dir: getComputedStyle(unit).direction};
})"""


def assert_marked(page: Page, claims: int, fell_back: int, direction: str) -> None:
    answer = page.locator(".answer-part").first
    marks = answer.evaluate(MARKS)
    assert len(marks) == claims
    for mark in marks:
        assert mark["width"] > 30 and mark["height"] > 8, mark
        assert not mark["overlaps"], mark
        assert mark["dir"] == direction, mark
        # on the line where its claim ends
        assert mark["top"] < mark["lastBottom"] and mark["bottom"] > mark["lastTop"], mark
    assert sum(m["text"] == "LLM\u00a0fell\u00a0back" for m in marks) == fell_back
    for mark in answer.locator(".llm-mark").all():
        assert mark.is_visible()
        readable(mark)
    for mark in page.locator(".claims td.verdict .llm-mark").all():
        assert mark.is_visible()
        readable(mark)
    assert page.locator(".claims td.verdict .llm-mark").count() == claims
    notes = page.locator(".claims .llm-note")
    assert notes.count() == fell_back
    for note in notes.all():
        assert note.is_visible() and "verifier's verdict stands" in note.inner_text()
        readable(note)
    line = page.locator(".llm-summary")
    assert line.is_visible() and "decided by the LLM judge" in line.inner_text()
    readable(line)
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], width  # nothing widens the page


def test_the_marks_show_in_an_english_and_a_hebrew_answer_light_dark_and_narrow(
    open_session: Callable[..., Session],
) -> None:
    session = open_session()
    page = session.page
    english = llm_judged_review(session.user)
    hebrew = llm_judged_review(session.user, HEBREW)
    for width in (1280, 375):
        page.set_viewport_size({"width": width, "height": 900})
        for scheme in ("light", "dark"):
            page.emulate_media(color_scheme=scheme)
            session.goto(english.get_absolute_url())
            assert_marked(page, 4, 2, "ltr")
            session.goto(hebrew.get_absolute_url())
            assert page.locator(".answer-part").first.get_attribute("dir") == "rtl"
            assert_marked(page, 3, 1, "rtl")
    session.no_xss()


@pytest.mark.slow
def test_llm_judge_screenshots(open_session: Callable[..., Session]) -> None:
    IMG.mkdir(exist_ok=True)
    session = open_session(name="rina")
    page = session.page
    review = llm_judged_review(session.user, ENGLISH)
    shots = (("light", 1360, "light"), ("dark", 1360, "dark"), ("375", 375, "light"))
    for name, width, scheme in shots:
        page.set_viewport_size({"width": width, "height": 860})
        page.emulate_media(color_scheme=scheme)
        session.goto(review.get_absolute_url())
        assert_marked(page, 4, 2, "ltr")
        page.locator(".answer .claim").nth(2).hover()
        page.wait_for_timeout(300)  # let colour transitions finish
        # The phone's page is long: down to the claims table, what the marks are on.
        bottom = page.evaluate(
            "() => document.querySelector('.claims').getBoundingClientRect().bottom + scrollY"
        )
        clip = {"x": 0, "y": 0, "width": width, "height": bottom + 24} if width < 600 else None
        page.screenshot(path=str(IMG / f"llm-judge-review-{name}.png"), full_page=True, clip=clip)
    session.no_xss()
