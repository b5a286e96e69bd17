"""Gemini GenerateContentResponse import (SPEC §2): fixtures, problems, malformed input."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest

from grounding_app.formats.gemini import parse_gemini
from grounding_app.formats.grounded import Candidate, GroundedAnswer, Problem, Segment
from grounding_app.formats.imports import ImportFormatError

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "imports"
GEMINI_FIXTURES = sorted(path.name for path in FIXTURES.glob("gemini_*.json"))
SUPPORTS = "candidates[0].groundingMetadata.groundingSupports"


def load(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


def span_bytes(candidate: Candidate, segment: Segment) -> str:
    return candidate.parts[segment.part].encode()[segment.start : segment.end].decode()


def to_snake(value: Any) -> Any:
    """Every key spelled snake_case, as `model_dump()` of the SDK types writes it."""
    if isinstance(value, dict):
        return {
            re.sub(r"[A-Z]", lambda m: "_" + m.group().lower(), key): to_snake(item)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [to_snake(item) for item in value]
    return value


def one(text: str, **metadata: Any) -> dict[str, Any]:
    """A one-candidate, one-part response around `text` with the given metadata."""
    return {"candidates": [{"content": {"parts": [{"text": text}]}, "groundingMetadata": metadata}]}


WEB = [{"web": {"uri": "https://a.example/1", "title": "a"}}, {"web": {"uri": "u2", "title": "b"}}]


# --- fixtures ----------------------------------------------------------------------------


def test_web_search_fixture():
    data = load("gemini_web_search.json")
    grounded = parse_gemini(data)
    assert grounded.format == "gemini"
    (candidate,) = grounded.candidates
    metadata = data["candidates"][0]["groundingMetadata"]
    assert candidate.parts == (data["candidates"][0]["content"]["parts"][0]["text"],)
    assert candidate.web_search_queries == ("who won euro 2024", "euro 2024 final score")
    # shown exactly as given: not one byte of the widget's HTML or CSS changed
    assert candidate.search_entry_html == (metadata["searchEntryPoint"]["renderedContent"],)
    assert "<style>" in candidate.search_entry_html[0]
    assert "prefers-color-scheme: dark" in candidate.search_entry_html[0]
    assert [source.domain for source in candidate.sources] == [
        "uefa.com",
        "aljazeera.com",
        "wikipedia.org",
    ]
    assert candidate.sources[0].uri.startswith("https://vertexaisearch.cloud.google.com/")
    assert candidate.sources[0].metadata == {"kind": "web"}
    first, second = candidate.segments
    assert (first.part, first.start) == (0, 0)  # startIndex left out, as Gemini does for 0
    assert first.source_indices == (0, 1)
    assert first.confidence == (0.9626, 0.8127)
    assert second.text == "This victory marks Spain's record fourth European Championship title."
    assert second.source_indices == (0, 2)
    assert all(span_bytes(candidate, segment) == segment.text for segment in candidate.segments)
    assert candidate.problems == ()
    assert all(segment.verdict is None for segment in candidate.segments)


def test_retrieved_context_keeps_chunk_text():
    (candidate,) = parse_gemini(load("gemini_retrieved_context.json")).candidates
    first = candidate.sources[0]
    assert first.text.startswith("Section 2.1: Eligible employees may work remotely")
    assert first.uri == "gs://acme-hr-docs/policies/remote-work-2024.pdf"
    assert first.title == "Remote Work Policy 2024"
    assert first.metadata["kind"] == "retrievedContext"
    assert first.metadata["documentName"].endswith("/documents/7f3c2a9e1b")
    assert candidate.search_entry_html == ()
    assert [segment.source_indices for segment in candidate.segments] == [(0,), (1,)]


def test_rag_chunk_text_stands_in_for_missing_text():
    data = one(
        "Hi.",
        groundingChunks=[{"retrievedContext": {"uri": "gs://b/o", "ragChunk": {"text": "body"}}}],
    )
    assert parse_gemini(data).candidates[0].sources[0].text == "body"


def test_part_index_one():
    (candidate,) = parse_gemini(load("gemini_two_parts.json")).candidates
    assert len(candidate.parts) == 2
    assert [segment.part for segment in candidate.segments] == [1, 1]
    assert [span_bytes(candidate, segment) for segment in candidate.segments] == [
        "The Eiffel Tower is 330 metres tall.",
        "It was completed in 1889.",
    ]


def test_non_text_part_keeps_part_index_aligned():
    (candidate,) = parse_gemini(load("gemini_function_call_part.json")).candidates
    assert candidate.parts == ("Let me look that up.", "", "Mount Everest is 8,849 metres high.")
    (segment,) = candidate.segments
    assert segment.part == 2
    assert span_bytes(candidate, segment) == segment.text


def test_missing_start_index_is_zero():
    (candidate,) = parse_gemini(load("gemini_missing_start_index.json")).candidates
    first = candidate.segments[0]
    assert (first.part, first.start, first.text) == (0, 0, "Canberra is the capital of Australia.")
    assert candidate.problems == ()


def test_empty_confidence_scores():
    (candidate,) = parse_gemini(load("gemini_empty_confidence.json")).candidates
    (segment,) = candidate.segments
    assert segment.confidence == ()
    assert segment.source_indices == (0,)


def test_two_candidates_each_with_own_metadata():
    first, second = parse_gemini(load("gemini_two_candidates.json")).candidates
    assert first.parts == ("Mercury is the closest planet to the Sun.",)
    assert second.parts == ("The planet nearest the Sun is Mercury.",)
    assert len(first.sources) == 1 and len(second.sources) == 2
    assert second.segments[0].source_indices == (1, 0)
    assert second.segments[0].confidence == (0.9, 0.7)
    assert first.web_search_queries == ("closest planet to the sun",)


@pytest.mark.parametrize("name", ["gemini_hebrew.json", "gemini_emoji.json"])
def test_multibyte_answers_use_byte_offsets(name: str):
    (candidate,) = parse_gemini(load(name)).candidates
    assert candidate.problems == ()
    assert len(candidate.segments) == 2
    for segment in candidate.segments:
        assert span_bytes(candidate, segment) == segment.text
    second = candidate.segments[1]
    # the byte offset is not the character offset: a reader using characters would fail
    assert candidate.parts[0].find(second.text) != second.start


@pytest.mark.parametrize("name", GEMINI_FIXTURES)
def test_snake_case_reads_the_same(name: str):
    data = load(name)
    assert parse_gemini(to_snake(data)) == parse_gemini(data)


@pytest.mark.parametrize("name", GEMINI_FIXTURES)
def test_agrees_with_the_official_sdk(name: str):
    """The typed reading of google-genai and ours agree on every field we use."""
    types = pytest.importorskip("google.genai.types")
    data = load(name)
    ours = parse_gemini(data)
    for snake in (False, True):
        sdk = types.GenerateContentResponse.model_validate(to_snake(data) if snake else data)
        assert len(sdk.candidates) == len(ours.candidates)
        for sdk_candidate, candidate in zip(sdk.candidates, ours.candidates, strict=True):
            parts = sdk_candidate.content.parts
            assert tuple(part.text or "" for part in parts) == candidate.parts
            metadata = sdk_candidate.grounding_metadata
            rendered = metadata.search_entry_point and metadata.search_entry_point.rendered_content
            assert candidate.search_entry_html == ((rendered,) if rendered else ())
            assert candidate.web_search_queries == tuple(metadata.web_search_queries or ())
            sdk_sources = [
                chunk.web or chunk.retrieved_context for chunk in metadata.grounding_chunks
            ]
            assert [(s.uri, s.title) for s in sdk_sources] == [
                (source.uri, source.title) for source in candidate.sources
            ]
            assert [getattr(s, "text", None) or "" for s in sdk_sources] == [
                source.text for source in candidate.sources
            ]
            sdk_segments = [
                (
                    support.segment.part_index or 0,
                    support.segment.start_index or 0,
                    support.segment.end_index,
                    support.segment.text,
                    tuple(support.grounding_chunk_indices),
                    tuple(support.confidence_scores or ()),
                )
                for support in metadata.grounding_supports
            ]
            assert sdk_segments == [
                (s.part, s.start, s.end, s.text, s.source_indices, s.confidence)
                for s in candidate.segments
            ]


# --- problems: a bad span is reported and not placed, never shifted ------------------------

HEBREW = "שלום עולם"  # every letter two bytes; 17 bytes in all


@pytest.mark.parametrize(
    ("text", "segment", "field", "message"),
    [
        ("Hello.", {"startIndex": 0, "endIndex": 60}, "segment.endIndex", "out of range"),
        ("Hello.", {"startIndex": -1, "endIndex": 3}, "segment.startIndex", "out of range"),
        ("Hello.", {"startIndex": 99, "endIndex": 99}, "segment.startIndex", "out of range"),
        ("Hello.", {"startIndex": 4, "endIndex": 2}, "segment.startIndex", "after the end"),
        (HEBREW, {"startIndex": 1, "endIndex": 8}, "segment.startIndex", "inside a multi-byte"),
        (HEBREW, {"startIndex": 0, "endIndex": 7}, "segment.endIndex", "inside a multi-byte"),
        ("Hello.", {"endIndex": 5, "text": "Help!"}, "segment.text", "does not match"),
        (HEBREW, {"endIndex": 8, "text": "שלום עו"}, "segment.text", "does not match"),
        ("Hello.", {"partIndex": 1, "endIndex": 2}, "segment.partIndex", "part 1 is out of range"),
        ("Hello.", {"startIndex": 2}, "segment.endIndex", "missing"),
        ("Hello.", {"startIndex": "2", "endIndex": "99"}, "segment.endIndex", "out of range"),
    ],
)
def test_bad_span_is_a_problem(text: str, segment: dict[str, Any], field: str, message: str):
    good = {"segment": {"endIndex": 2}, "groundingChunkIndices": [0]}
    bad = {"segment": segment, "groundingChunkIndices": [0]}
    data = one(text, groundingChunks=WEB, groundingSupports=[good, bad])
    (candidate,) = parse_gemini(data).candidates
    assert candidate.segments == (Segment(part=0, start=0, end=2, text="", source_indices=(0,)),)
    (problem,) = candidate.problems
    assert problem.field == f"{SUPPORTS}[1].{field}"
    assert message in problem.message
    assert "not placed" in problem.message


def test_problem_message_names_the_segment_text():
    data = one("Hello.", groundingSupports=[{"segment": {"endIndex": 5, "text": "Help!"}}])
    (problem,) = parse_gemini(data).candidates[0].problems
    assert "'Help!'" in problem.message and "'Hello'" in problem.message


def test_bad_chunk_index_is_dropped_with_its_score():
    support = {
        "segment": {"endIndex": 5, "text": "Hello"},
        "groundingChunkIndices": [0, 7, -1, 1],
        "confidenceScores": [0.9, 0.8, 0.7, 0.6],
    }
    (candidate,) = parse_gemini(
        one("Hello.", groundingChunks=WEB, groundingSupports=[support])
    ).candidates
    (segment,) = candidate.segments
    assert segment.source_indices == (0, 1)
    assert segment.confidence == (0.9, 0.6)
    assert [problem.field for problem in candidate.problems] == [
        f"{SUPPORTS}[0].groundingChunkIndices[1]",
        f"{SUPPORTS}[0].groundingChunkIndices[2]",
    ]
    assert "groundingChunks has 2 entries" in candidate.problems[0].message


def test_confidence_scores_not_parallel_are_left_out():
    support = {
        "segment": {"endIndex": 5},
        "groundingChunkIndices": [0, 1],
        "confidenceScores": [0.9],
    }
    (candidate,) = parse_gemini(
        one("Hello.", groundingChunks=WEB, groundingSupports=[support])
    ).candidates
    assert candidate.segments[0].confidence == ()
    assert candidate.segments[0].source_indices == (0, 1)
    assert candidate.problems == (
        Problem(
            f"{SUPPORTS}[0].confidenceScores",
            "1 score for 2 chunk indices; the scores are left out.",
        ),
    )


def test_no_metadata_means_a_plain_answer():
    data = {"candidates": [{"content": {"parts": [{"text": "Hi."}]}, "finishReason": "STOP"}]}
    assert parse_gemini(data) == GroundedAnswer("gemini", (Candidate(parts=("Hi.",)),))


def test_candidate_without_content_has_no_parts():
    data = {"candidates": [{"finishReason": "SAFETY"}]}
    assert parse_gemini(data).candidates == (Candidate(parts=()),)


def test_thought_part_keeps_its_text():
    data = {
        "candidates": [{"content": {"parts": [{"text": "hmm", "thought": True}, {"text": "A."}]}}]
    }
    assert parse_gemini(data).candidates[0].parts == ("hmm", "A.")


def test_unknown_fields_are_ignored():
    data = load("gemini_web_search.json")
    expected = parse_gemini(data)
    data["candidates"][0]["groundingMetadata"]["someFutureField"] = {"x": 1}
    data["candidates"][0]["groundingMetadata"]["groundingSupports"][0]["segment"]["newThing"] = 2
    data["futureTopLevel"] = []
    assert parse_gemini(data) == expected


def test_unknown_chunk_kind_is_read_generically():
    data = one(
        "Hi.",
        groundingChunks=[
            {"maps": {"uri": "https://maps.example/p", "title": "Cafe", "placeId": "p1"}},
            {},
        ],
    )
    sources = parse_gemini(data).candidates[0].sources
    assert sources[0].uri == "https://maps.example/p"
    assert sources[0].metadata == {"kind": "maps", "placeId": "p1"}
    assert sources[1].uri == ""  # an empty chunk keeps its place so indices stay aligned


def test_uris_are_kept_raw():
    data = one(
        "Hi.", groundingChunks=[{"web": {"uri": "javascript:alert(1)", "title": "<b>x</b>"}}]
    )
    source = parse_gemini(data).candidates[0].sources[0]
    assert (source.uri, source.title) == ("javascript:alert(1)", "<b>x</b>")


# --- malformed input: one error naming the field ------------------------------------------


def _mutate(path: list[Any], value: Any) -> dict[str, Any]:
    data = copy.deepcopy(load("gemini_web_search.json"))
    target = data
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return data


C0 = ["candidates", 0]
GM = [*C0, "groundingMetadata"]
S0 = [*GM, "groundingSupports", 0]
GMP = "candidates[0].groundingMetadata"


@pytest.mark.parametrize(
    ("path", "value", "field"),
    [
        (["candidates"], "x", "candidates"),
        (["candidates"], [], "candidates"),
        (C0, [1], "candidates[0]"),
        ([*C0, "content"], "text", "candidates[0].content"),
        ([*C0, "content", "parts"], {}, "candidates[0].content.parts"),
        ([*C0, "content", "parts", 0], "x", "candidates[0].content.parts[0]"),
        ([*C0, "content", "parts", 0, "text"], 5, "candidates[0].content.parts[0].text"),
        (GM, [], GMP),
        ([*GM, "webSearchQueries"], "q", f"{GMP}.webSearchQueries"),
        ([*GM, "webSearchQueries", 0], 1, f"{GMP}.webSearchQueries[0]"),
        ([*GM, "searchEntryPoint"], "<div>", f"{GMP}.searchEntryPoint"),
        (
            [*GM, "searchEntryPoint", "renderedContent"],
            1,
            f"{GMP}.searchEntryPoint.renderedContent",
        ),
        ([*GM, "groundingChunks"], {}, f"{GMP}.groundingChunks"),
        ([*GM, "groundingChunks", 0], "x", f"{GMP}.groundingChunks[0]"),
        ([*GM, "groundingChunks", 0, "web", "uri"], 7, f"{GMP}.groundingChunks[0].web.uri"),
        ([*GM, "groundingChunks", 0, "retrievedContext"], {}, f"{GMP}.groundingChunks[0]"),
        ([*GM, "groundingChunks", 0, "web"], "x", f"{GMP}.groundingChunks[0].web"),
        ([*GM, "groundingChunks", 0, "web", "title"], 1, f"{GMP}.groundingChunks[0].web.title"),
        ([*GM, "groundingSupports"], 3, f"{GMP}.groundingSupports"),
        ([*GM, "groundingSupports", 0], None, f"{GMP}.groundingSupports[0]"),
        ([*S0, "segment"], [], f"{GMP}.groundingSupports[0].segment"),
        ([*S0, "segment", "endIndex"], "x", f"{GMP}.groundingSupports[0].segment.endIndex"),
        ([*S0, "segment", "endIndex"], True, f"{GMP}.groundingSupports[0].segment.endIndex"),
        ([*S0, "segment", "endIndex"], 1.5, f"{GMP}.groundingSupports[0].segment.endIndex"),
        ([*S0, "segment", "startIndex"], [], f"{GMP}.groundingSupports[0].segment.startIndex"),
        ([*S0, "segment", "partIndex"], "one", f"{GMP}.groundingSupports[0].segment.partIndex"),
        ([*S0, "segment", "text"], 3, f"{GMP}.groundingSupports[0].segment.text"),
        ([*S0, "segment", "end_index"], 3, f"{GMP}.groundingSupports[0].segment.end_index"),
        ([*S0, "groundingChunkIndices"], 0, f"{GMP}.groundingSupports[0].groundingChunkIndices"),
        (
            [*S0, "groundingChunkIndices", 1],
            "b",
            f"{GMP}.groundingSupports[0].groundingChunkIndices[1]",
        ),
        ([*S0, "confidenceScores", 0], "NaN", f"{GMP}.groundingSupports[0].confidenceScores[0]"),
        ([*S0, "confidenceScores", 0], "high", f"{GMP}.groundingSupports[0].confidenceScores[0]"),
        ([*S0, "confidenceScores", 0], 1e400, f"{GMP}.groundingSupports[0].confidenceScores[0]"),
    ],
)
def test_malformed_field_is_named(path: list[Any], value: Any, field: str):
    with pytest.raises(ImportFormatError) as caught:
        parse_gemini(_mutate(path, value))
    assert caught.value.field == field
    assert str(caught.value).startswith(field)


def test_blocked_prompt_says_why():
    with pytest.raises(ImportFormatError, match="SAFETY") as caught:
        parse_gemini({"promptFeedback": {"blockReason": "SAFETY"}})
    assert caught.value.field == "candidates"


def test_not_an_object():
    with pytest.raises(ImportFormatError, match="expected an object"):
        parse_gemini([])


def test_path_prefix():
    with pytest.raises(ImportFormatError) as caught:
        parse_gemini({"candidates": [1]}, path="response")
    assert caught.value.field == "response.candidates[0]"
