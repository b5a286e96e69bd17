"""What a picture in docs/img is there to show, asserted on the page before it is taken:
a picture that no longer shows it fails its test instead of going into the docs."""

from __future__ import annotations

from playwright.sync_api import Locator, Page, expect

from tests.browser.test_widths import widths_problems
from tests.browser.test_word_matching import readable


def fits(page: Page) -> None:
    """Nothing scrolls sideways and no card's content sticks out of its card."""
    problems = widths_problems(page)
    assert problems == [], problems


def shows(locator: Locator, *texts: str) -> None:
    """The element is visible and its text, as rendered (in any case: a heading may be set
    in capitals by its style), holds `texts`."""
    expect(locator).to_be_visible()
    shown = locator.inner_text()
    missing = [text for text in texts if text.casefold() not in shown.casefold()]
    assert missing == [], f"{missing} not in: {shown[:500]}"


def lit(locator: Locator) -> None:
    """A marked element is visible and its text readable (4.5:1) on what is behind it."""
    expect(locator).to_be_visible()
    readable(locator)
