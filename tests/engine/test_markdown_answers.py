"""Markdown answers through the engine: table rows read as "header: cell", structure that
is no claim never checked (with its reason), list items read with their lead-in."""

from __future__ import annotations

from collections.abc import Sequence

from grounding_app.engine.encoders import Encoder, HashingEncoder
from grounding_app.engine.judges import ClaimInContext, Evidence
from grounding_app.engine.pipeline import GroundingEngine
from grounding_app.engine.types import (
    CODE,
    LEAD_IN,
    TABLE_HEADER,
    TABLE_RULE,
    CheckRequest,
    Fact,
)

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
    """Half supports what it is asked, so a list item read alone is read with its lead-in
    too (`pipeline.ENOUGH_SUPPORT`); records what the judge reads (claim, context)."""

    def __init__(self) -> None:
        self.read: list[ClaimInContext] = []

    def score(
        self, pairs: Sequence[tuple[ClaimInContext, Evidence]], encoder: Encoder | None = None
    ) -> list[float]:
        self.read.extend(claim for claim, _ in pairs)
        return [0.5 for _ in pairs]


def test_table_rows_code_and_list_items_as_the_judge_reads_them() -> None:
    judge = _Recording()
    response = GroundingEngine(HashingEncoder(), judge).check(CheckRequest(ANSWER, FACTS))
    pieces = [(c.text, c.grounding_check_required, c.no_check_reason) for c in response.claims]
    assert pieces == [
        ("James Cameron directed these films:", False, LEAD_IN),
        ("| Film | Year |", False, TABLE_HEADER),
        ("|:---|---:|", False, TABLE_RULE),
        ("| Titanic | 1997 |", True, None),
        ("```\nprint('Titanic')\n```", False, CODE),
        ("The cast includes:", False, LEAD_IN),
        ("- Kate Winslet", True, None),
    ]
    read = {claim.claim: claim.context for claim in judge.read}
    assert read["film: Titanic; year: 1997"] == "James Cameron directed these films:"
    assert read["Kate Winslet"] == "The cast includes:"
    assert not any("|" in claim or "```" in claim for claim in read)
    structure = [c for c in response.claims if c.no_check_reason]
    assert all(not c.citation_indices and c.score is None for c in structure)


FILMS_TABLE = (
    "Films by James Cameron:\n\n"
    "| Film | Year | Box office |\n"
    "|---|---|---|\n"
    "| Titanic | 1997 | $2.264 billion |\n"
    "| Avatar | 2009 | $2.923 billion |\n"
    "| Avatar | 2012 | $2.923 billion |\n"
    "| Titanic | 1997 | $1.1 billion |\n\n"
    "Titanic's cast includes:\n\n"
    "- Kate Winslet\n"
    "- Brad Pitt\n"
)
FILMS_FACTS = (
    Fact(
        "Titanic is a 1997 American epic romantic disaster film directed by James Cameron. "
        "It stars Kate Winslet and Leonardo DiCaprio. It grossed $2.264 billion worldwide."
    ),
    Fact(
        "Avatar is a 2009 science fiction film directed by James Cameron. It grossed "
        "$2.923 billion, the highest of any film."
    ),
)


def test_the_table_trap_with_the_shipped_engine() -> None:
    """Rows read as "film: Titanic; year: 1997; box office: ...": true rows supported,
    a wrong year or box office unsupported; a list item read with its lead-in."""
    response = GroundingEngine.default().check(
        CheckRequest(FILMS_TABLE, FILMS_FACTS, enable_claim_level_score=True)
    )
    verdicts = {
        c.text: bool(c.citation_indices) for c in response.claims if c.grounding_check_required
    }
    assert verdicts["| Titanic | 1997 | $2.264 billion |"]
    assert verdicts["| Avatar | 2009 | $2.923 billion |"]
    assert not verdicts["| Avatar | 2012 | $2.923 billion |"]
    assert not verdicts["| Titanic | 1997 | $1.1 billion |"]
    assert verdicts["- Kate Winslet"] and not verdicts["- Brad Pitt"]
    assert "| Film | Year | Box office |" not in verdicts and "|---|---|---|" not in verdicts
