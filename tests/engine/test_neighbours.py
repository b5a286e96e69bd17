"""Neighbours: a judge that reads long windows is shown the sentences around the best
match, read but never cited; the default (0) shows the passages alone."""

from __future__ import annotations

import pytest

from grounding_app.engine.encoders import HashingEncoder
from grounding_app.engine.pipeline import GroundingEngine, Settings
from grounding_app.engine.types import CheckRequest, Fact
from tests.engine.test_pipeline import _RecordingJudge

STORY = Fact(
    "The council met on Monday. Mayor Lopez proposed a parking levy. "
    "Councillor Reed criticised it. The vote was postponed. Rain fell all week."
)
OTHER = Fact("Bananas are yellow. Apples are red.")


@pytest.mark.parametrize(
    ("neighbours", "read"),
    [
        (0, ["Mayor Lopez proposed a parking levy."]),
        (
            1,
            [
                "The council met on Monday.",
                "Mayor Lopez proposed a parking levy.",
                "Councillor Reed criticised it.",
            ],
        ),
        (
            2,
            [
                "The council met on Monday.",
                "Mayor Lopez proposed a parking levy.",
                "Councillor Reed criticised it.",
                "The vote was postponed.",
            ],
        ),
    ],
)
def test_neighbours_are_read_around_the_best_passage_and_never_cited(
    neighbours: int, read: list[str]
) -> None:
    judge = _RecordingJudge()
    engine = GroundingEngine(
        HashingEncoder(),
        judge,  # type: ignore[arg-type]
        Settings(facts_per_claim=1, passages_per_fact=1, neighbours=neighbours),
    )
    response = engine.check(
        CheckRequest(answer="Mayor Lopez proposed a parking levy.", facts=(STORY, OTHER))
    )
    first_call = judge.calls[0][0][1]
    for sentence in read:
        assert sentence in first_call
    assert "Rain fell all week." not in first_call
    for sentence in ("Councillor Reed criticised it.", "The vote was postponed."):
        assert (sentence in first_call) == (sentence in read)
    assert "Bananas" not in first_call  # neighbours never cross into another fact
    assert [c.chunk_text for c in response.cited_chunks] == ["Mayor Lopez proposed a parking levy."]
