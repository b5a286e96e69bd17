"""A response's `unsupportedSpans` read back exactly as the check returned them."""

from __future__ import annotations

import pytest

from grounding_app.engine import CheckRequest, CheckResponse, Claim, Fact
from grounding_app.formats.check_grounding import FormatError, response_to_json
from grounding_app.formats.check_grounding_response import (
    grounded_from_check_json,
    parse_check_response,
)

ANSWER = "Lagos is a port. Lagos holds roughly 13 million people."
SECOND = ANSWER.index("Lagos holds")
WORDS = (ANSWER.index("holds"), len(ANSWER) - 1)  # "holds roughly 13 million people"


def _response() -> CheckResponse:
    return CheckResponse(
        (
            Claim(0, SECOND - 1, ANSWER[: SECOND - 1], True, (), 0.9),
            Claim(SECOND, len(ANSWER), ANSWER[SECOND:], True, (), 0.2, unsupported=(WORDS,)),
        ),
        (),
        0.55,
    )


def test_the_words_round_trip_through_the_wire() -> None:
    wire = response_to_json(_response())
    assert parse_check_response(wire, ANSWER).claims[1].unsupported == (WORDS,)
    grounded = grounded_from_check_json(CheckRequest(ANSWER, (Fact("Lagos."),)), wire)
    assert grounded.candidates[0].segments[1].unsupported == (WORDS,)


def test_words_outside_their_claim_are_a_problem() -> None:
    wire = response_to_json(_response())
    wire["claims"][1]["unsupportedSpans"].append({"startPos": 0, "endPos": 5})
    with pytest.raises(FormatError, match="not inside their claim"):
        parse_check_response(wire, ANSWER)
    grounded = grounded_from_check_json(CheckRequest(ANSWER, ()), wire, "response")
    candidate = grounded.candidates[0]
    assert candidate.segments[1].unsupported == (WORDS,)
    assert [p.field for p in candidate.problems] == ["response.claims[1].unsupportedSpans[1]"]
