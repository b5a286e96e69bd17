"""Evidence cards and uncited sentences in Chromium (issue 43, item 5): an unsupported
claim with the check's words marked, a table row's card holding its number, a Gemini
import with sentences nothing cites; light and dark, phone and desktop, no sideways
scroll, no serious axe violation (slow: `-m slow`; writes var/shots/evidence-*.png)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from grounding_app.engine import CheckRequest, CheckResponse, CitedChunk, Claim, GroundingEngine
from grounding_app.formats.from_check import grounded_from_check
from grounding_app.reviews import services
from grounding_app.reviews.models import Review
from tests.browser.conftest import Session
from tests.browser.test_axe import violations
from tests.browser.test_widths import widths_problems
from tests.reviews.test_evidence_shown import ANSWER, FACTS, TABLE, _gemini, _response

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

SHOTS = Path(__file__).resolve().parents[2] / "var" / "shots"


def _table_review(user: object) -> Review:
    start = TABLE.index("| Lagos")
    request = CheckRequest(TABLE, FACTS)
    response = CheckResponse(
        (Claim(start, len(TABLE), TABLE[start:], True, (0,), 0.87),),
        (CitedChunk("Lagos is a port.", 1, {"title": "Lagos"}),),
        0.87,
    )
    return services.save_review(
        user,
        grounded_from_check(request, response),
        source_format=Review.Format.MANUAL,
        request=request,
        engine_checked=True,
    )


def test_evidence_cards_and_uncited_sentences_are_drawn(
    open_session: Callable[..., Session],
    fake_engine: GroundingEngine,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    session = open_session(name="evelyn")
    monkeypatch.setattr(fake_engine, "check", lambda request, *rest: _response())
    reviews = {
        "unsupported": services.check_and_save(session.user, CheckRequest(ANSWER, FACTS)),
        "table-row": _table_review(session.user),
        "gemini-uncited": services.import_and_save(session.user, _gemini()),
    }
    page = session.page
    problems: list[str] = []
    for name, review in reviews.items():
        for scheme in ("light", "dark"):
            for width in (375, 1280):
                page.emulate_media(color_scheme=scheme)
                page.set_viewport_size({"width": width, "height": 900})
                session.goto(review.get_absolute_url())
                page.wait_for_load_state("networkidle")
                if name == "gemini-uncited":
                    assert page.locator(".claim-row.v-uncited").count() == 2
                    assert (
                        page.locator(".badge.v-uncited")
                        .first.inner_text()
                        .endswith("2 without citation")
                    )
                else:
                    card = page.locator("details.evidence-card").last
                    card.evaluate("(e) => { e.open = true; }")
                    assert card.locator("mark.ev-mark").count() >= 1
                if name == "unsupported":
                    words = page.locator("table.claims .unsupported-word").all_inner_texts()
                    assert "holds roughly 13 million people" in words
                if name == "table-row":
                    assert page.locator("mark.ev-number", has_text="15 million").count() == 1
                where = f"{name} {scheme} {width}"
                problems += [f"{where}: {p}" for p in widths_problems(page)]
                problems += [f"{where}: {v}" for v in violations(page)]
                page.wait_for_timeout(300)  # colour transitions end before the shot
                page.locator("section.candidate").first.screenshot(
                    path=str(SHOTS / f"evidence-{name}-{scheme}-{width}.png")
                )
    assert not problems, "\n".join(problems)
    session.no_xss()
