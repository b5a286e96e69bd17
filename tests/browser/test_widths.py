"""Every page at phone, tablet and desktop widths, light and dark: nothing may make the
page scroll sideways, and no card's content may stick out of its card."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Literal

import pytest
from playwright.sync_api import Browser, Page, expect

from grounding_app.engine import GroundingEngine
from tests.browser.conftest import Session
from tests.browser.pages import seed

pytestmark = pytest.mark.django_db(transaction=True)

IMG = Path(__file__).resolve().parents[2] / "docs" / "img"
WIDTHS = (375, 768, 1280)
SCHEMES: tuple[Literal["light", "dark"], ...] = ("light", "dark")

# Elements wider than the card or column that holds them (scrollable boxes excepted).
OVERFLOWING = """() => {
  const out = [];
  for (const el of document.querySelectorAll('.card, .sources-col, .source, main.page')) {
    const box = el.getBoundingClientRect();
    for (const child of el.querySelectorAll('*')) {
      let scroller = false;
      for (let p = child.parentElement; p && p !== el; p = p.parentElement) {
        const o = getComputedStyle(p).overflowX;
        if (o === 'auto' || o === 'scroll' || o === 'hidden') { scroller = true; break; }
      }
      if (scroller || child.closest('iframe')) continue;
      const r = child.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) continue;
      if (r.right > box.right + 1 || r.left < box.left - 1) {
        out.push(`${el.className} > ${child.tagName}.${child.className}: ` +
                 `${Math.round(r.left)}..${Math.round(r.right)} ` +
                 `outside ${Math.round(box.left)}..${Math.round(box.right)}`);
      }
    }
  }
  return out.slice(0, 5);
}"""


def widths_problems(page: Page) -> list[str]:
    scroll = page.evaluate("() => document.scrollingElement.scrollWidth")
    inner = page.evaluate("() => window.innerWidth")
    problems = [f"page is {scroll} px wide in a {inner} px window"] if scroll > inner else []
    return problems + page.evaluate(OVERFLOWING)


def test_no_page_scrolls_sideways(
    browser: Browser, open_session: Callable[..., Session], fake_engine: GroundingEngine
) -> None:
    session = open_session(role="superuser", name="wanda")
    pages = seed(session.user, fake_engine)
    page = session.page
    anonymous = browser.new_page()
    found: list[str] = []
    for scheme in SCHEMES:
        for width in WIDTHS:
            for view in (page, anonymous):
                view.emulate_media(color_scheme=scheme)
                view.set_viewport_size({"width": width, "height": 900})
            for name, path in pages.items():
                session.goto(path)
                page.wait_for_load_state("networkidle")
                found += [f"{name} at {width} ({scheme}): {p}" for p in widths_problems(page)]
            anonymous.goto(session.base + "/accounts/login/")
            found += [f"login at {width} ({scheme}): {p}" for p in widths_problems(anonymous)]
    anonymous.close()
    assert not found, "\n".join(found)
    session.no_xss()


# Room between each list item's start edge and the inside of the answer card: the
# bullet hangs in it, on the item's own start side.
MARKER_ROOM = """() => [...document.querySelectorAll('.answer-md li')].map((li) => {
  const card = li.closest('.answer').getBoundingClientRect();
  const box = li.getBoundingClientRect();
  const ltr = getComputedStyle(li).direction === 'ltr';
  const style = getComputedStyle(li.closest('.answer'));
  return ltr ? box.left - card.left - parseFloat(style.paddingLeft)
             : card.right - parseFloat(style.paddingRight) - box.right;
})"""


def test_an_english_bullet_in_a_hebrew_answer_stays_inside_the_card(
    open_session: Callable[..., Session], fake_engine: GroundingEngine
) -> None:
    session = open_session()
    path = seed(session.user, fake_engine)["review rtl markdown"]
    session.page.set_viewport_size({"width": 375, "height": 800})
    session.goto(path)
    rooms = session.page.evaluate(MARKER_ROOM)
    assert len(rooms) == 2
    assert min(rooms) >= 14, rooms


@pytest.mark.slow
def test_phone_and_tablet_screenshots(
    open_session: Callable[..., Session], fake_engine: GroundingEngine
) -> None:
    """docs/img/review-phone-{light,dark}.png, review-tablet.png and batch-phone.png: a
    review and a batch job read at a phone's and a tablet's width, nothing sideways."""
    session = open_session(role="superuser", name="rina")
    pages = seed(session.user, fake_engine)
    page = session.page
    shots = (
        ("review", 375, "light", "review-phone-light"),
        ("review", 375, "dark", "review-phone-dark"),
        ("review", 768, "light", "review-tablet"),
        ("batch detail", 375, "light", "batch-phone"),
    )
    for name, width, scheme, shot in shots:
        page.emulate_media(color_scheme=scheme)
        page.set_viewport_size({"width": width, "height": 1600})
        session.goto(pages[name])
        page.wait_for_load_state("networkidle")
        page.wait_for_timeout(300)  # colour transitions end
        assert widths_problems(page) == [], shot
        if name == "review":
            expect(page.locator(".answer").first).to_contain_text("Remote work at Example Corp")
            assert page.locator(".answer .claim").count() >= 8
            expect(page.locator(".claims").first).to_contain_text("may work remotely")
        else:
            expect(page.locator("h1")).to_contain_text("support-log")
            expect(page.locator("main")).to_contain_text("31 / 31")
        page.screenshot(path=str(IMG / f"{shot}.png"))
