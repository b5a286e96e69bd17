"""The agreement page's reliability diagram on a phone (issue 44, item 19): drawn for
its width (rendering/charts.py), its labels were about 6 px high at 375 px."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from grounding_app.annotations.allocation import next_assignment
from grounding_app.annotations.items import create_project, import_jsonl
from grounding_app.annotations.labels import ClaimState, submit
from grounding_app.engine import GroundingEngine
from tests.browser.conftest import Session
from tests.browser.test_widths import SCHEMES, widths_problems

pytestmark = pytest.mark.django_db(transaction=True)

SHOTS = Path(__file__).resolve().parents[2] / "var" / "screens" / "round5"
FACT = "The bridge opened in 1932 and is 1,149 metres long."
ANSWERS = (
    "The bridge opened in 1932.",
    "The bridge is 1,149 metres long.",
    "The bridge opened in 1950.",
    "It is painted red.",
)
TEXT = "(svg) => [...svg.querySelectorAll('text')].map((t) => t.getBoundingClientRect().height)"


def _agreement(user: Any, make_user: Callable[..., Any]) -> str:
    """A project whose claims two annotators labeled, so the diagram has filled bins."""
    annotators = [make_user("annotator", name) for name in ("ann", "bob")]
    project = create_project(user, name="Calibration", overlap=2, annotators=annotators)
    lines = [{"id": str(i), "facts": [{"text": FACT}], "claim": a} for i, a in enumerate(ANSWERS)]
    import_jsonl(project, "".join(json.dumps(line) + "\n" for line in lines))
    for annotator in annotators:
        while (assignment := next_assignment(project, annotator)) is not None:
            labels = {
                c.pk: ClaimState(
                    "supported" if "1932" in c.text or "1,149" in c.text else "unsupported"
                )
                for c in assignment.item.claims.all()
            }
            submit(assignment, labels)
    return f"/annotations/{project.pk}/agreement/"


def test_the_reliability_diagram_is_readable_on_a_phone(
    open_session: Callable[..., Session],
    fake_engine: GroundingEngine,
    make_user: Callable[..., Any],
) -> None:
    session = open_session(role="superuser", name="rae")
    path = _agreement(session.user, make_user)
    page = session.page
    for width, kind in ((375, "chart-narrow"), (1280, "chart-wide")):
        page.set_viewport_size({"width": width, "height": 900})
        session.goto(path)
        chart = page.locator("svg.chart-reliability:visible")
        expect(chart).to_have_count(1)
        expect(chart).to_have_class(f"chart chart-reliability {kind}")
        assert chart.locator(".chart-count-label").count() > 0  # filled bins are drawn
        # Every label's height on screen, in px: ticks, counts and axis names.
        heights = chart.evaluate(TEXT)
        assert min(heights) >= 9.0, (width, heights)
        assert widths_problems(page) == [], width


@pytest.mark.slow
def test_reliability_screenshots(
    open_session: Callable[..., Session],
    fake_engine: GroundingEngine,
    make_user: Callable[..., Any],
) -> None:
    """var/screens/round5/reliability-*.png at 375 and 1280 px, light and dark."""
    session = open_session(role="superuser", name="sid")
    path = _agreement(session.user, make_user)
    page = session.page
    SHOTS.mkdir(parents=True, exist_ok=True)
    for scheme in SCHEMES:
        for width in (375, 1280):
            page.emulate_media(color_scheme=scheme)
            page.set_viewport_size({"width": width, "height": 900})
            session.goto(path)
            page.wait_for_load_state("networkidle")
            page.wait_for_timeout(300)  # colour transitions end
            chart = page.locator(".chart-card")
            chart.screenshot(path=str(SHOTS / f"reliability-{scheme}-{width}.png"))
