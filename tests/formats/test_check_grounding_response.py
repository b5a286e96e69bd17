"""Imported CheckGroundingResponse (SPEC §1): strict parse, grounded import, problems."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from grounding_app.engine import (
    NO_CHECK_REASONS,
    VERIFIER,
    WORD_MATCHING,
    CheckRequest,
    CheckResponse,
    CitedChunk,
    Claim,
    Fact,
    split_claims,
    split_sentences,
    unchecked_reason,
)
from grounding_app.formats.check_grounding import FormatError, parse_check_request, response_to_json
from grounding_app.formats.check_grounding_response import (
    grounded_from_check_json,
    parse_check_response,
)
from grounding_app.formats.grounded import Problem, Segment

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "imports"
PAIR = json.loads((FIXTURES / "check_grounding_pair.json").read_text(encoding="utf-8"))
ANSWER = PAIR["request"]["answerCandidate"]
REQUEST = parse_check_request(PAIR["request"])
HEBREW = "ירושלים היא בירת ישראל. היא עיר עתיקה."


def response(*claims: dict[str, Any], chunks: int = 1) -> dict[str, Any]:
    return {
        "citedChunks": [{"chunkText": f"c{i}", "source": str(i)} for i in range(chunks)],
        "claims": list(claims),
    }


# --- strict: parse_check_response --------------------------------------------------------


def test_strict_parse_of_fixture():
    parsed = parse_check_response(PAIR["response"], ANSWER)
    assert parsed.support_score == 0.4952
    assert parsed.cited_chunks == (
        CitedChunk(
            chunk_text=PAIR["response"]["citedChunks"][0]["chunkText"],
            source=0,
            source_metadata={"author": "Simple Wikipedia"},
        ),
    )
    first, second, third = parsed.claims
    assert first == Claim(0, 21, "Here is what I found.", grounding_check_required=False)
    assert second.citation_indices == (0,)
    assert second.score == 0.9871
    assert third.citation_indices == ()
    assert third.grounding_check_required is True


def test_snake_case_and_numbers_as_strings():
    snake = {
        "support_score": "0.5",
        "cited_chunks": [{"chunk_text": "x", "source": "0", "source_metadata": {"a": "b"}}],
        "cited_facts": [{"chunk_text": "x"}],
        "claims": [
            {
                "start_pos": "0",
                "end_pos": "6",
                "claim_text": "Hello.",
                "citation_indices": ["0"],
                "grounding_check_required": True,
                "score": "0.75",
            }
        ],
    }
    camel = {
        "supportScore": 0.5,
        "citedChunks": [{"chunkText": "x", "source": "0", "sourceMetadata": {"a": "b"}}],
        "claims": [
            {
                "startPos": 0,
                "endPos": 6,
                "claimText": "Hello.",
                "citationIndices": [0],
                "groundingCheckRequired": True,
                "score": 0.75,
            }
        ],
    }
    assert parse_check_response(snake, "Hello.") == parse_check_response(camel, "Hello.")


def test_defaults():
    parsed = parse_check_response({"claims": [{"endPos": 2}]}, "Hi")
    assert parsed == CheckResponse(
        claims=(Claim(0, 2, "", grounding_check_required=True),),
        cited_chunks=(),
        support_score=None,
    )
    assert parse_check_response({}, "") == CheckResponse((), (), None)


@pytest.mark.parametrize(
    "answer",
    ["Titanic was directed by James Cameron. It is long.", HEBREW, "Emoji 🎉 here. Next 👨‍💻 one."],
)
def test_round_trip_with_response_to_json(answer: str):
    claims = tuple(
        Claim(s.start, s.end, s.text, True, citation_indices=(0,), score=0.5)
        for s in split_sentences(answer)
    )
    original = CheckResponse(claims, (CitedChunk("chunk", 0, {"author": "A"}),), 0.5)
    assert parse_check_response(response_to_json(original), answer) == original


@pytest.mark.parametrize(
    ("language", "checked_by", "wire"),
    [("en", VERIFIER, "VERIFIER"), ("he", WORD_MATCHING, "WORD_MATCHING"), (None, None, None)],
)
def test_what_judged_a_claim_round_trips(language, checked_by, wire):
    (sentence,) = split_sentences(HEBREW)[:1]
    claim = Claim(sentence.start, sentence.end, sentence.text, True, (), 0.4, language, checked_by)
    original = CheckResponse((claim,), (), 0.4)
    data = response_to_json(original)
    assert data["claims"][0].get("checkedBy") == wire
    assert data["claims"][0].get("language") == language
    assert parse_check_response(data, HEBREW) == original


def test_an_unknown_checked_by_is_a_format_error():
    data = {"claims": [{"startPos": 0, "endPos": 2, "claimText": "Hi", "checkedBy": "ORACLE"}]}
    with pytest.raises(FormatError, match="checkedBy"):
        parse_check_response(data, "Hi")


@pytest.mark.parametrize(
    ("claim", "field", "message"),
    [
        ({"startPos": 0, "endPos": 99, "claimText": ""}, "claims[0].endPos", "out of range"),
        ({"startPos": 4, "endPos": 1}, "claims[0].startPos", "after the end"),
        ({"startPos": 1, "endPos": 4}, "claims[0].startPos", "inside a multi-byte"),
        ({"endPos": 14, "claimText": "ירושלם"}, "claims[0].claimText", "does not match"),
        ({"startPos": 0}, "claims[0].endPos", "missing"),
        ({"endPos": 14, "citationIndices": [1]}, "claims[0].citationIndices[0]", "out of range"),
    ],
)
def test_strict_refuses_bad_claims(claim: dict[str, Any], field: str, message: str):
    with pytest.raises(FormatError) as caught:
        parse_check_response(response(claim), HEBREW)
    assert caught.value.field == field
    assert message in caught.value.message


def test_strict_refuses_lone_surrogate_answer():
    with pytest.raises(FormatError) as caught:
        parse_check_response({}, "a\ud800")
    assert caught.value.field == "answer"


# --- import: grounded_from_check_json ----------------------------------------------------


def test_grounded_from_fixture():
    grounded = grounded_from_check_json(REQUEST, PAIR["response"], "response")
    assert grounded.format == "check_grounding"
    (candidate,) = grounded.candidates
    assert candidate.parts == (ANSWER,)
    assert candidate.support_score == 0.4952
    assert [segment.verdict for segment in candidate.segments] == [
        "no_check",
        "supported",
        "unsupported",
    ]
    assert candidate.segments[1].score == 0.9871
    (source,) = candidate.sources
    assert source.fact_index == 0
    assert source.metadata == {"author": "Simple Wikipedia"}
    assert candidate.problems == ()
    for segment in candidate.segments:
        assert ANSWER.encode()[segment.start : segment.end].decode() == segment.text


def test_fact_chunk_uri_title_domain_fields():
    data = {
        "citedChunks": [
            {
                "chunkText": "x",
                "source": 0,
                "uri": "https://a.example/",
                "title": "A",
                "domain": "a.example",
                "index": "3",
                "sourceMetadata": {"title": "old"},
            }
        ]
    }
    request = CheckRequest("Hi.", (Fact("x"),))
    (source,) = grounded_from_check_json(request, data).candidates[0].sources
    assert (source.uri, source.title, source.domain) == ("https://a.example/", "A", "a.example")


CLAIMS = "response.claims"


@pytest.mark.parametrize(
    ("claim", "field", "message"),
    [
        ({"startPos": 0, "endPos": 99, "claimText": "whole"}, "endPos", "out of range"),
        ({"startPos": -1, "endPos": 3, "claimText": "x"}, "startPos", "out of range"),
        ({"startPos": 10, "endPos": 2, "claimText": "x"}, "startPos", "after the end"),
        ({"startPos": 1, "endPos": 14, "claimText": "x"}, "startPos", "inside a multi-byte"),
        ({"startPos": 0, "endPos": 13, "claimText": "x"}, "endPos", "inside a multi-byte"),
        ({"endPos": 14, "claimText": "ירושלם"}, "claimText", "does not match"),
        ({"startPos": 2, "claimText": "x"}, "endPos", "missing"),
    ],
)
def test_bad_claim_is_a_problem_and_not_placed(claim: dict[str, Any], field: str, message: str):
    request = CheckRequest(HEBREW, (Fact("f"),))
    good = {"startPos": 43, "endPos": 68, "claimText": "היא עיר עתיקה.", "citationIndices": [0]}
    grounded = grounded_from_check_json(request, response(good, claim), "response")
    (candidate,) = grounded.candidates
    assert candidate.segments == (
        Segment(0, 43, 68, "היא עיר עתיקה.", source_indices=(0,), verdict="supported"),
    )
    (problem,) = candidate.problems
    assert problem.field == f"{CLAIMS}[1].{field}"
    assert message in problem.message
    assert problem.message.startswith(f"claim {claim['claimText']!r} is not placed")


def test_bad_citation_index_is_dropped():
    request = CheckRequest("Hi.", (Fact("f"),))
    claim = {"endPos": 3, "claimText": "Hi.", "citationIndices": [0, 5, -1]}
    (candidate,) = grounded_from_check_json(request, response(claim)).candidates
    (segment,) = candidate.segments
    assert segment.source_indices == (0,)
    assert [problem.field for problem in candidate.problems] == [
        "claims[0].citationIndices[1]",
        "claims[0].citationIndices[2]",
    ]


def test_claim_with_only_bad_citations_is_unsupported():
    request = CheckRequest("Hi.", (Fact("f"),))
    claim = {"endPos": 3, "citationIndices": [4]}
    (candidate,) = grounded_from_check_json(request, response(claim)).candidates
    assert candidate.segments[0].verdict == "unsupported"
    assert len(candidate.problems) == 1


def test_source_past_the_facts_is_a_problem():
    request = CheckRequest("Hi.", (Fact("f"),))
    (candidate,) = grounded_from_check_json(request, response(chunks=3)).candidates
    assert [source.fact_index for source in candidate.sources] == [0, None, None]
    assert candidate.problems == (
        Problem("citedChunks[1].source", "fact 1 is out of range: the request has 1 fact."),
        Problem("citedChunks[2].source", "fact 2 is out of range: the request has 1 fact."),
    )


def _mutate(path: list[Any], value: Any) -> dict[str, Any]:
    data = copy.deepcopy(PAIR["response"])
    target = data
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return data


@pytest.mark.parametrize(
    ("path", "value", "field"),
    [
        (["supportScore"], "high", "supportScore"),
        (["supportScore"], "NaN", "supportScore"),
        (["supportScore"], True, "supportScore"),
        (["claims"], {}, "claims"),
        (["claims", 0], "claim", "claims[0]"),
        (["claims", 1, "startPos"], "x", "claims[1].startPos"),
        (["claims", 1, "endPos"], 2.5, "claims[1].endPos"),
        (["claims", 1, "claimText"], 1, "claims[1].claimText"),
        (["claims", 1, "citationIndices"], 0, "claims[1].citationIndices"),
        (["claims", 1, "citationIndices", 0], "zero", "claims[1].citationIndices[0]"),
        (["claims", 1, "groundingCheckRequired"], "false", "claims[1].groundingCheckRequired"),
        (["claims", 1, "score"], "NaN", "claims[1].score"),
        (["claims", 1, "claim_text"], "dup", "claims[1].claim_text"),
        (["citedChunks"], "x", "citedChunks"),
        (["citedChunks", 0, "source"], "abc", "citedChunks[0].source"),
        (["citedChunks", 0, "source"], None, "citedChunks[0].source"),
        (["citedChunks", 0, "chunkText"], 1, "citedChunks[0].chunkText"),
        (["citedChunks", 0, "sourceMetadata"], [], "citedChunks[0].sourceMetadata"),
        (
            ["citedChunks", 0, "sourceMetadata", "author"],
            5,
            'citedChunks[0].sourceMetadata["author"]',
        ),
        (["citedChunks", 0, "index"], "first", "citedChunks[0].index"),
        (["citedFacts", 0], 1, "citedFacts[0]"),
        (["citedFacts", 0, "chunkText"], False, "citedFacts[0].chunkText"),
    ],
)
def test_malformed_field_is_named(path: list[Any], value: Any, field: str):
    data = _mutate(path, value)
    for parse in (
        lambda: parse_check_response(data, ANSWER),
        lambda: grounded_from_check_json(REQUEST, data, "response"),
    ):
        with pytest.raises(FormatError) as caught:
            parse()
        assert caught.value.field.removeprefix("response.") == field


def test_not_an_object():
    with pytest.raises(FormatError) as caught:
        grounded_from_check_json(REQUEST, [], "response")
    assert caught.value.field == "response"


TABLE_ANSWER = "| Film | Year |\n|---|---|\n| Titanic | 1997 |\n\n```\nx = 1\n```"


def test_why_structure_is_no_claim_round_trips_and_is_not_shown_as_a_claim():
    request = CheckRequest(TABLE_ANSWER, (Fact("Titanic is a 1997 film."),))
    claims = tuple(
        Claim(s.start, s.end, s.text, s.no_check_reason is None, no_check_reason=s.no_check_reason)
        for s in split_claims(TABLE_ANSWER)
    )
    original = CheckResponse(claims, (), None)
    data = response_to_json(original)
    assert [c.get("noCheckReason") for c in data["claims"]] == [
        "TABLE_HEADER",
        "TABLE_RULE",
        None,
        "CODE",
    ]
    assert parse_check_response(data, TABLE_ANSWER) == original
    (candidate,) = grounded_from_check_json(request, data).candidates
    assert [s.text for s in candidate.segments] == ["| Titanic | 1997 |"]


def test_an_unknown_no_check_reason_is_a_format_error():
    data = {"claims": [{"startPos": 0, "endPos": 2, "claimText": "Hi", "noCheckReason": "X"}]}
    with pytest.raises(FormatError, match="noCheckReason"):
        parse_check_response(data, "Hi")


UNCHECKED_ANSWER = (
    "## Paris\n\nHi! Paris is the capital of France. Is it big?\n\nHighlights:\n\n"
    "- The Louvre.\n\nTo list them yourself, you can run the script:\n\n```\nls\n```\n\n"
    "See the official city site for opening hours. Hope this helps! Yes."
)


def test_every_reason_a_sentence_is_not_checked_round_trips():
    """Each `noCheckReason` is written in capitals and read back; the layout (code) is
    left out of the display, every other unchecked piece shown with its reason."""
    request = CheckRequest(UNCHECKED_ANSWER, (Fact("Paris is the capital of France."),))
    claims = tuple(
        Claim(s.start, s.end, s.text, reason is None, no_check_reason=reason)
        for s in split_claims(UNCHECKED_ANSWER)
        for reason in [s.no_check_reason or unchecked_reason(s.text)]
    )
    original = CheckResponse(claims, (), None)
    data = response_to_json(original)
    assert [c.get("noCheckReason") for c in data["claims"]] == [
        "HEADING",
        "GREETING",
        None,
        "QUESTION",
        "LEAD_IN",
        None,
        "INSTRUCTION",
        "CODE",
        "POINTER",
        "SIGN_OFF",
        "NO_CLAIM",
    ]
    assert parse_check_response(data, UNCHECKED_ANSWER) == original
    (candidate,) = grounded_from_check_json(request, data).candidates
    shown = [(s.text, s.verdict, s.no_check_reason) for s in candidate.segments]
    assert ("```\nls\n```", "no_check", "code") not in shown
    assert ("## Paris", "no_check", "heading") in shown
    assert ("See the official city site for opening hours.", "no_check", "pointer") in shown


@pytest.mark.parametrize("reason", NO_CHECK_REASONS)
def test_each_no_check_reason_is_read_in_capitals(reason: str):
    data = {"claims": [{"startPos": 0, "endPos": 2, "claimText": "Hi"}]}
    data["claims"][0].update(noCheckReason=reason.upper(), groundingCheckRequired=False)
    (claim,) = parse_check_response(data, "Hi").claims
    assert claim.no_check_reason == reason and not claim.grounding_check_required
