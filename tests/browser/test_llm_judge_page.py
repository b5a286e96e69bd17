"""The LLM judge on the Verifier page in chromium: an admin sets it through the form,
tries it against a real local chat-completions server, and the section says which claims
go to it (Hebrew included); no sideways scroll at 375 px, no serious axe-core violation
in light or dark. `-m slow` redraws docs/img/verifier-llm-judge-{light,dark}-{1280,375}.png."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Literal

import pytest

from grounding_app.engine import GroundingEngine
from grounding_app.llm_judge.models import JudgeConfig
from tests.browser.conftest import Session
from tests.browser.shots import fits, shows
from tests.browser.test_axe import violations
from tests.browser.test_widths import widths_problems
from tests.llm_judge.chat_server import ChatServer, Step, answer, chat_server

pytestmark = pytest.mark.django_db(transaction=True)

IMG = Path(__file__).resolve().parents[2] / "docs" / "img"
SHOT_DIR = Path(__file__).resolve().parents[2] / "var" / "shots"  # looked at, not kept
SHOTS: tuple[tuple[Literal["light", "dark"], int], ...] = (
    ("light", 1280),
    ("dark", 1280),
    ("light", 375),
    ("dark", 375),
    ("light", 768),
    ("dark", 768),
)


@pytest.fixture
def server() -> Iterator[ChatServer]:
    with chat_server(answer("supported", passage=0)) as running:
        yield running


def set_judge(session: Session, server: ChatServer) -> None:
    page = session.page
    session.goto("/verifiers/")
    section = page.locator("#llm-judge")
    assert "none: every verdict is the verifier" in section.inner_text()
    assert not page.is_checked("#id_enabled")  # no judge set: not ticked
    page.check("#id_enabled")
    page.fill("#id_url", server.url)
    page.fill("#id_model", "qwen2.5:7b-instruct")
    page.fill("#id_key", "sk-local-0123456789abcdef")
    page.check("#id_unread_languages")
    page.fill("#id_daily_tokens", "2000000")
    with page.expect_navigation():
        section.get_by_role("button", name="Save the LLM judge").click()
    # "Try" answers under its button, in place (htmx): no navigation.
    section.get_by_role("button", name="Try it on a sample claim").click()
    page.locator("#judge-try-result [data-try]").wait_for()


def test_an_admin_sets_and_tries_the_judge_and_the_section_fits(
    open_session: Callable[..., Session], server: ChatServer, fake_engine: GroundingEngine
) -> None:
    session = open_session(role="admin", name="ada")
    set_judge(session, server)
    assert JudgeConfig.objects.get().model == "qwen2.5:7b-instruct"
    assert len(server.requests) == 1
    page = session.page
    assert "a well-formed ruling, supported" in page.locator("#judge-try-result").inner_text()
    facts = page.locator("#llm-judge .verifier-facts").inner_text()
    assert "and every claim in Hebrew" in facts and "1 call" in facts
    assert "sk-local-0123456789abcdef" not in page.content()
    found: list[tuple[str, int, object]] = []
    for scheme, width in SHOTS:
        page.emulate_media(color_scheme=scheme)
        page.set_viewport_size({"width": width, "height": 900})
        session.goto("/verifiers/")
        found += [(scheme, width, p) for p in widths_problems(page)]
        found += [(scheme, width, v) for v in violations(page)]
    session.no_xss()
    assert not found, "\n".join(map(str, found))


def test_an_unreachable_judge_is_shown_failing_beside_try(
    open_session: Callable[..., Session], fake_engine: GroundingEngine
) -> None:
    session = open_session(role="admin", name="ada")
    with chat_server(Step(status=500)) as failing:
        set_judge(session, failing)
    page = session.page
    assert "No usable answer from" in page.locator("#judge-try-result").inner_text()
    facts = page.locator("#llm-judge .verifier-facts").inner_text()
    assert "Failing" in facts and "Judging now" not in facts
    SHOT_DIR.mkdir(parents=True, exist_ok=True)
    found: list[tuple[str, int, object]] = []
    for scheme, width in SHOTS:
        page.emulate_media(color_scheme=scheme)
        page.set_viewport_size({"width": width, "height": 900})
        found += [(scheme, width, p) for p in widths_problems(page)]
        found += [(scheme, width, v) for v in violations(page)]
        page.locator("#llm-judge").screenshot(
            path=str(SHOT_DIR / f"llm-judge-failing-{scheme}-{width}.png")
        )
    assert not found, "\n".join(map(str, found))


@pytest.mark.slow
def test_llm_judge_screenshots(
    open_session: Callable[..., Session], server: ChatServer, fake_engine: GroundingEngine
) -> None:
    session = open_session(role="admin", name="ada")
    set_judge(session, server)
    for scheme, width in SHOTS[:3]:
        session.page.emulate_media(color_scheme=scheme)
        session.page.set_viewport_size({"width": width, "height": 900})
        session.goto("/verifiers/")
        session.page.wait_for_timeout(300)
        # A judge saved and tried: its model, Hebrew sent to it, the call made, no key.
        section = session.page.locator("#llm-judge")
        shows(section, "qwen2.5:7b-instruct", "and every claim in Hebrew", "1 call")
        assert "sk-local-0123456789abcdef" not in session.page.content()
        fits(session.page)
        shot = IMG / f"verifier-llm-judge-{scheme}-{width}.png"
        session.page.locator("#llm-judge").screenshot(path=str(shot))
