"""Markdown answers through the engine: table rows read as "header: cell", structure that
is no claim never checked (with its reason), list items read with their lead-in."""

from __future__ import annotations

from collections.abc import Sequence

from grounding_app.engine.encoders import Encoder, HashingEncoder
from grounding_app.engine.judges import ClaimInContext, Evidence
from grounding_app.engine.pipeline import GroundingEngine
from grounding_app.engine.types import CODE, TABLE_HEADER, TABLE_RULE, CheckRequest, Fact

ANSWER = (
    "James Cameron directed these films:\n\n"
    "| Film | Year |\n"
    "|:---|---:|\n"
    "| Titanic | 1997 |\n\n"
    "```\nprint('Titanic')\n```\n\n"
    "The cast includes:\n"
    "- Kate Winslet\n"
)
FACTS = (
    Fact("Titanic is a 1997 film directed by James Cameron."),
    Fact("The cast includes Kate Winslet and Leonardo DiCaprio."),
)


class _Recording:
    """Supports what it is asked; records what the judge reads (claim, context)."""

    def __init__(self) -> None:
        self.read: list[ClaimInContext] = []

    def score(
        self, pairs: Sequence[tuple[ClaimInContext, Evidence]], encoder: Encoder | None = None
    ) -> list[float]:
        self.read.extend(claim for claim, _ in pairs)
        return [0.95 for _ in pairs]


def test_table_rows_code_and_list_items_as_the_judge_reads_them() -> None:
    judge = _Recording()
    response = GroundingEngine(HashingEncoder(), judge).check(CheckRequest(ANSWER, FACTS))
    pieces = [(c.text, c.grounding_check_required, c.no_check_reason) for c in response.claims]
    assert pieces == [
        ("James Cameron directed these films:", True, None),
        ("| Film | Year |", False, TABLE_HEADER),
        ("|:---|---:|", False, TABLE_RULE),
        ("| Titanic | 1997 |", True, None),
        ("```\nprint('Titanic')\n```", False, CODE),
        ("The cast includes:", True, None),
        ("- Kate Winslet", True, None),
    ]
    read = {claim.claim: claim.context for claim in judge.read}
    assert read["Film: Titanic; Year: 1997"] == "James Cameron directed these films:"
    assert read["Kate Winslet"] == "The cast includes:"
    assert not any("|" in claim or "```" in claim for claim in read)
    structure = [c for c in response.claims if c.no_check_reason]
    assert all(not c.citation_indices and c.score is None for c in structure)
