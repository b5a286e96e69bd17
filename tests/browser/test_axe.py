"""axe-core on every page, light and dark, desktop and phone: no critical or serious
violation.

axe-core 4.10.3 (MPL-2.0, tests/browser/vendor/axe-LICENSE) is vendored, as the browser
tests never download anything; it is evaluated in the page by Playwright, which the
pages' CSP does not govern.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from grounding_app.engine import GroundingEngine
from tests.browser.conftest import Session
from tests.browser.pages import seed

pytestmark = pytest.mark.django_db(transaction=True)

AXE = (Path(__file__).parent / "vendor" / "axe.min.js").read_text(encoding="utf-8")

RUN = """async () => {
  const result = await axe.run(document, {resultTypes: ['violations']});
  return result.violations
    .filter((v) => v.impact === 'critical' || v.impact === 'serious')
    .map((v) => ({id: v.id, impact: v.impact,
                  nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' ') + ': ' +
                                                  n.failureSummary.split('\\n')[1])}));
}"""


def violations(page: Page) -> list[dict[str, Any]]:
    page.wait_for_load_state("networkidle")
    page.wait_for_timeout(250)  # colour transitions end before contrast is measured
    if not page.evaluate("() => typeof axe !== 'undefined'"):
        page.evaluate(AXE + "\n;true")
    found: list[dict[str, Any]] = page.evaluate(RUN)
    return found


def test_no_page_has_a_serious_accessibility_violation(
    browser: Browser, open_session: Callable[..., Session], fake_engine: GroundingEngine
) -> None:
    session = open_session(role="superuser", name="ada")
    pages = seed(session.user, fake_engine)
    page = session.page
    anonymous = browser.new_page()
    found = []
    # Light and dark on a desktop; on a phone, where wide tables scroll in their box.
    for scheme, width in (("light", 1280), ("dark", 1280), ("light", 375), ("dark", 375)):
        for view in (page, anonymous):
            view.emulate_media(color_scheme=scheme)
            view.set_viewport_size({"width": width, "height": 900})
        for name, path in pages.items():
            session.goto(path)
            found += [(name, f"{scheme}, {width}", v) for v in violations(page)]
        anonymous.goto(session.base + "/accounts/login/")
        found += [("login", f"{scheme}, {width}", v) for v in violations(anonymous)]
    anonymous.close()
    assert not found, "\n".join(f"{name} ({where}): {v}" for name, where, v in found)
