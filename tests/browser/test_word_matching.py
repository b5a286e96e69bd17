"""The word-matching mark in Debian's chromium: visible beside each Hebrew claim of a
mixed answer and of a right-to-left one, on the claim's row and in the summary line,
never over the claim's text, readable in light and dark mode.

The slow test writes docs/img/review-hebrew-word-matching-{light,dark}.png (a mixed
English/Hebrew answer) and docs/img/review-hebrew-rtl-word-matching-{light,dark}.png (a
Hebrew-only answer), checked by the real engine (`-m slow`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page

from grounding_app.engine import CheckRequest, Fact, GroundingEngine
from grounding_app.reviews import services
from grounding_app.reviews.models import Review
from tests.browser.conftest import Session

pytestmark = pytest.mark.django_db(transaction=True)

IMG = Path(__file__).resolve().parents[2] / "docs" / "img"

FACTS = (
    Fact(
        "Titanic is a 1997 American epic romantic disaster movie. It was directed, written, "
        "and co-produced by James Cameron. It stars Kate Winslet and Leonardo DiCaprio.",
        {"author": "Simple Wikipedia"},
    ),
    Fact(
        "טיטאניק הוא סרט אמריקאי משנת 1997. את הסרט ביים, כתב והפיק ג'יימס קמרון. "
        "בסרט מככבים קייט וינסלט ולאונרדו דיקפריו.",
        {"author": "ויקיפדיה"},
    ),
)
MIXED = (
    "Titanic was directed by James Cameron. It starred Brad Pitt and Kate Winslet. "
    "את הסרט ביים ג'יימס קמרון. בסרט מככבים קייט וינסלט ולאונרדו דיקפריו."
)
HEBREW = (
    "טיטאניק הוא סרט אמריקאי משנת 1997. את הסרט ביים ג'יימס קמרון. "
    "בסרט מככבים קייט וינסלט ובראד פיט."
)

# Per answer mark: its box, and whether it overlaps any box of its own claim's text.
MARKS = """(root) => [...root.querySelectorAll(".claim-unit")].filter(
  (unit) => unit.querySelector(".wm-mark")
).map((unit) => {
  const mark = unit.querySelector(".wm-mark").getBoundingClientRect();
  const text = [...unit.querySelector(".claim").getClientRects()];
  const overlaps = text.some((r) => r.left < mark.right - 1 && mark.left < r.right - 1
    && r.top < mark.bottom - 1 && mark.top < r.bottom - 1);
  const last = text[text.length - 1];
  return {width: mark.width, height: mark.height, top: mark.top, bottom: mark.bottom,
          lastTop: last.top, lastBottom: last.bottom, overlaps,
          dir: getComputedStyle(unit).direction};
})"""

# The colour of an element's text and of what is painted behind it, alpha blended.
COLOURS = """(el) => {
  const parse = (c) => (c.match(/[\\d.]+/g) || []).map(Number);
  let [r, g, b, a] = [0, 0, 0, 0];
  const layers = [];
  for (let node = el; node; node = node.parentElement) {
    const bg = parse(getComputedStyle(node).backgroundColor);
    if (bg.length >= 3 && (bg[3] ?? 1) > 0) layers.push(bg);
    if (bg.length >= 3 && (bg[3] ?? 1) === 1) break;
  }
  let base = [255, 255, 255];
  for (const layer of layers.reverse()) {
    const alpha = layer[3] ?? 1;
    base = base.map((v, i) => layer[i] * alpha + v * (1 - alpha));
  }
  return {text: parse(getComputedStyle(el).color).slice(0, 3), back: base};
}"""


def contrast(text: list[float], back: list[float]) -> float:
    def luminance(rgb: list[float]) -> float:
        def channel(v: float) -> float:
            v /= 255
            return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

        r, g, b = (channel(v) for v in rgb)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    high, low = sorted((luminance(text), luminance(back)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def review_of(user: object, answer: str) -> Review:
    return services.check_and_save(user, CheckRequest(answer, FACTS, 0.6, True))


def readable(mark: Locator) -> None:
    colours = mark.evaluate(COLOURS)
    ratio = contrast(colours["text"], colours["back"])
    assert ratio >= 4.5, (colours, ratio)


def assert_marked(page: Page, hebrew_claims: int, summary: str) -> None:
    answer = page.locator(".answer-part").first
    marks = answer.evaluate(MARKS)
    assert len(marks) == hebrew_claims
    for mark in marks:
        assert mark["width"] > 40 and mark["height"] > 8, mark
        assert not mark["overlaps"], mark
        assert mark["dir"] == "rtl", mark  # each sits in its Hebrew claim's isolate
        # on the line where its claim ends
        assert mark["top"] < mark["lastBottom"] and mark["bottom"] > mark["lastTop"], mark
    inline = answer.locator(".wm-mark")
    for i in range(inline.count()):
        assert inline.nth(i).is_visible()
        assert inline.nth(i).inner_text().endswith("Hebrew: word matching")
        readable(inline.nth(i))
    notes = page.locator(".claims .wm-note")
    assert notes.count() == hebrew_claims
    for i in range(notes.count()):
        assert notes.nth(i).is_visible()
        assert "Hebrew: checked by word matching;" in notes.nth(i).inner_text()
        readable(notes.nth(i))
    line = page.locator(".wm-summary")
    assert line.is_visible() and summary in line.inner_text()
    readable(line)
    box = line.bounding_box()
    assert box is not None and box["width"] < 1280


def test_the_mark_is_visible_in_a_mixed_and_a_hebrew_answer_light_and_dark(
    open_session: Callable[..., Session], fake_engine: GroundingEngine
) -> None:
    session = open_session()
    page = session.page
    mixed = review_of(session.user, MIXED)
    hebrew = review_of(session.user, HEBREW)
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        session.goto(mixed.get_absolute_url())
        assert_marked(page, 2, "2 of 4 checked claims are in Hebrew")
        english = page.locator(".claims .claim-row").first
        assert "word matching" not in english.inner_text()
        code = english.locator(".lang-code")
        assert code.is_visible() and code.get_attribute("title") == "English"
        assert code.inner_text().startswith("EN")
        session.goto(hebrew.get_absolute_url())
        assert page.locator(".answer-part").first.get_attribute("dir") == "rtl"
        assert_marked(page, 3, "All 3 checked claims are in Hebrew")
    session.no_xss()


@pytest.mark.slow
def test_word_matching_screenshots(
    open_session: Callable[..., Session], fresh_checker: object
) -> None:
    """With the real engine (its verifier reads English only)."""
    IMG.mkdir(exist_ok=True)
    session = open_session(name="rina")
    page = session.page
    page.set_viewport_size({"width": 1360, "height": 860})
    shots = (
        ("review-hebrew-word-matching", review_of(session.user, MIXED), 2),
        ("review-hebrew-rtl-word-matching", review_of(session.user, HEBREW), 3),
    )
    for name, review, hebrew_claims in shots:
        for scheme in ("light", "dark"):
            page.emulate_media(color_scheme=scheme)
            session.goto(review.get_absolute_url())
            assert_marked(page, hebrew_claims, "checked by word matching; this verifier reads")
            page.locator(".answer .claim").last.hover()
            page.wait_for_timeout(300)  # let colour transitions finish
            page.screenshot(path=str(IMG / f"{name}-{scheme}.png"), full_page=True)
    session.no_xss()
