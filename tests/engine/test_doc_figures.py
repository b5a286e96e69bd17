"""The scores docs/verifier.md gives as today's are the engine's today: its tables on the
Yelp record of `test_records.py` and the council article of `test_summaries.py` are read
from the page and each claim is checked again. A change to the engine that moves one
fails here until the page says the new score."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grounding_app.engine import CheckRequest, Fact, GroundingEngine
from tests.engine.test_records import YELP
from tests.engine.test_summaries import ARTICLE

PAGE = Path(__file__).resolve().parents[2] / "docs" / "verifier.md"
# The council claims in full: the page shortens some to their tail ("...approved ...").
COUNCIL = (
    "The Riverside City Council approved a $48 million housing plan 7\u20132, and Mayor Sandra"
    " Whitfield signed it on Wednesday.",
    "The Riverside City Council approved a $48 million affordable housing plan that Mayor"
    " Sandra Whitfield had proposed, and she signed it on Wednesday.",
    "The Riverside City Council approved a $48 million housing plan 7\u20132 over the objections"
    " of Daniel Reyes and Patricia Holt, and Mayor Sandra Whitfield, who praised it, signed"
    " it on Wednesday.",
)
TABLES = {
    "on the Yelp record of `test_records.py`": json.dumps(YELP),
    "on the council article of `test_summaries.py`": ARTICLE,
}


def quoted(page: str, heading: str) -> list[tuple[str, float]]:
    """(claim, today's score) of each row of the table whose first header cell is
    `heading`; a claim given by its tail is written out in full."""
    lines = page.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"| {heading} |"))
    assert "today" in lines[start].split("|")[-2], "the last column is today's scores"
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        claim = cells[0]
        if claim.startswith("..."):
            (claim,) = [text for text in COUNCIL if text.endswith(claim.removeprefix("..."))]
        rows.append((claim, float(cells[-1])))
    return rows


@pytest.fixture(scope="module")
def engine() -> GroundingEngine:
    return GroundingEngine.default()


@pytest.mark.parametrize("heading", list(TABLES))
def test_the_scores_the_page_gives_as_today_s_are_the_engine_s(
    engine: GroundingEngine, heading: str
) -> None:
    rows = quoted(PAGE.read_text(encoding="utf-8"), heading)
    assert len(rows) >= 5
    fact = Fact(TABLES[heading])
    today = []
    for claim, _ in rows:
        response = engine.check(CheckRequest(claim, (fact,), enable_claim_level_score=True))
        (checked,) = response.claims
        assert checked.score is not None
        today.append((claim, round(checked.score, 3)))
    assert today == rows, "write the new scores into docs/verifier.md"


def test_a_table_is_read_with_its_tails_written_out() -> None:
    page = (
        "| on the council article of `test_summaries.py` | before | today |\n|---|---|---|\n"
        "| ...and she signed it on Wednesday. | 0.078 | 0.893 |\n"
        "| Whitfield voted against the plan. | 0.849 | 0.033 |\n\nProse.\n"
    )
    assert quoted(page, "on the council article of `test_summaries.py`") == [
        (COUNCIL[1], 0.893),
        ("Whitfield voted against the plan.", 0.033),
    ]
