"""Browser tests: Debian's chromium driven by Playwright against pytest-django's live server.

Never `playwright install`: the browser is /usr/bin/chromium (scripts/test installs it).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from playwright.sync_api import Browser, Page, sync_playwright
from playwright.sync_api import Error as PlaywrightError

# Playwright's sync API runs an event loop in this thread; Django's ORM would otherwise
# refuse to be called from it.
os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: run scripts/test, or apt-get install -y chromium")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@dataclass
class Session:
    """A signed-in browser page, with every dialog it tried to open."""

    page: Page
    base: str
    user: object
    dialogs: list[str] = field(default_factory=list)
    # Accept confirmations (the Verifier page's switch asks first) instead of dismissing
    # them; those accepted are kept apart from `dialogs`, which no_xss wants empty.
    accept_confirms: bool = False
    confirmed: list[str] = field(default_factory=list)

    def goto(self, path: str) -> None:
        self.page.goto(self.base + path)

    def no_xss(self) -> None:
        assert self.dialogs == [], f"a dialog opened: {self.dialogs}"
        assert self.page.evaluate("() => window.__xss") is None, "an XSS payload ran"


@pytest.fixture
def open_session(
    browser: Browser, live_server: object, make_user: Callable[..., object]
) -> Iterator[Callable[..., Session]]:
    contexts = []

    def open_(javascript: bool = True, role: str = "reviewer", name: str | None = None) -> Session:
        user = make_user(role, name)
        client = Client()
        client.force_login(user)
        context = browser.new_context(
            java_script_enabled=javascript, viewport={"width": 1280, "height": 900}
        )
        contexts.append(context)
        context.add_cookies(
            [
                {
                    "name": settings.SESSION_COOKIE_NAME,
                    "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
                    "url": live_server.url,
                }
            ]
        )
        page = context.new_page()
        page.set_default_timeout(15_000)
        session = Session(page, live_server.url, user)

        def record(dialog: object) -> None:
            if session.accept_confirms and dialog.type == "confirm":
                session.confirmed.append(dialog.message)
                dialog.accept()
                return
            session.dialogs.append(dialog.message)
            dialog.dismiss()

        page.on("dialog", record)
        return session

    yield open_
    # A keypress at a test's end may still have a request in flight ("1" saves a label);
    # the database is flushed right after, and on PostgreSQL that TRUNCATE deadlocked with
    # the live server's transaction once. Let each page's requests finish first.
    for context in contexts:
        for page in context.pages:
            with contextlib.suppress(PlaywrightError):
                page.wait_for_load_state("networkidle", timeout=2_000)
        context.close()
