"""The passage of the facts stored beside a claim's cited ones (`common.evidence`)."""

from __future__ import annotations

from grounding_app.common.evidence import with_evidence
from grounding_app.engine import CheckRequest, CheckResponse, CitedChunk, Claim, Fact
from grounding_app.formats.from_check import grounded_from_check
from grounding_app.formats.grounded import FactPassage, GroundedAnswer

ANSWER = (
    "| City | Population |\n|---|---|\n| Lagos | 15 million |\n\n"
    "Lagos holds roughly 13 million people."
)
FACTS = (
    Fact("Tokyo is the capital of Japan. It has about 14 million residents.", {"title": "Tokyo"}),
    Fact(
        "Lagos is the largest city in Nigeria. The city proper has about 15 million residents.",
        {"title": "Lagos"},
    ),
)


def _claim(text: str, citations: tuple[int, ...], score: float) -> Claim:
    start = ANSWER.encode().index(text.encode())
    return Claim(start, start + len(text.encode()), text, True, citations, score)


def _grounded() -> GroundedAnswer:
    # As the engine answered: the row cites the sentence naming Lagos, not its number.
    response = CheckResponse(
        (
            _claim("| Lagos | 15 million |", (0,), 0.87),
            _claim("Lagos holds roughly 13 million people.", (), 0.29),
        ),
        (CitedChunk("Lagos is the largest city in Nigeria.", 1, {"title": "Lagos"}),),
        0.58,
    )
    return grounded_from_check(CheckRequest(ANSWER, FACTS), response)


def test_a_row_citing_a_passage_without_its_number_gets_the_passage_stating_it() -> None:
    row, _ = with_evidence(_grounded(), FACTS).candidates[0].segments
    assert row.evidence == FactPassage(
        "The city proper has about 15 million residents.", 1, "numbers", "Lagos"
    )


def test_an_unsupported_claim_gets_the_passage_its_words_were_measured_against() -> None:
    _, claim = with_evidence(_grounded(), FACTS).candidates[0].segments
    assert claim.evidence is not None
    assert (claim.evidence.fact_index, claim.evidence.reason) == (1, "closest")
    assert "Lagos" in claim.evidence.text


def test_a_claim_whose_cited_passage_states_its_numbers_needs_none() -> None:
    response = CheckResponse(
        (_claim("| Lagos | 15 million |", (0,), 0.87),),
        (CitedChunk("The city proper has about 15 million residents.", 1, {}),),
        0.87,
    )
    grounded = with_evidence(grounded_from_check(CheckRequest(ANSWER, FACTS), response), FACTS)
    assert grounded.candidates[0].segments[0].evidence is None
    assert with_evidence(_grounded(), ()) == _grounded()
