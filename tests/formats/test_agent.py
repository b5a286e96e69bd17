"""Agent session output import (SPEC §3): fixture, concatenation, problems, malformed input."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest

from grounding_app.formats.agent import parse_agent
from grounding_app.formats.grounded import Segment
from grounding_app.formats.imports import ImportFormatError

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "imports"
EMOJI = "Launch 🚀 day."  # 🚀 is 4 bytes at byte 7; 18 bytes in all


def load(name: str = "agent_session_output.json") -> Any:
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


def to_snake(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            re.sub(r"[A-Z]", lambda m: "_" + m.group().lower(), key): to_snake(item)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [to_snake(item) for item in value]
    return value


def cited(text: str, inline: list[dict[str, Any]], chunks: int = 2) -> list[dict[str, Any]]:
    chunk_list = [{"uri": f"https://s{i}.example/", "title": f"S{i}"} for i in range(chunks)]
    return [{"text": text}, {"citations": {"citedChunks": chunk_list, "inlineCitations": inline}}]


def test_fixture():
    grounded = parse_agent(load())
    assert grounded.format == "agent"
    (candidate,) = grounded.candidates
    answer = "The Hubble Space Telescope was launched in 1990. It orbits about 540 km above Earth."
    assert candidate.parts == (answer,)
    assert [source.requires_attribution for source in candidate.sources] == [True, False, False]
    assert candidate.sources[0].uri == "https://science.nasa.gov/mission/hubble/overview/"
    assert candidate.sources[0].title == "Hubble Overview - NASA Science"
    assert candidate.sources[1].text.startswith("Hubble orbits Earth")
    first, second = candidate.segments
    assert (first.start, first.source_indices) == (0, (0,))  # startIndex left out: 0
    assert answer.encode()[first.start : first.end].decode() == (
        "The Hubble Space Telescope was launched in 1990."
    )
    assert answer.encode()[second.start : second.end].decode() == (
        "It orbits about 540 km above Earth."
    )
    assert second.source_indices == (1, 2)
    assert candidate.web_search_queries == ("hubble launch date", "hubble orbit altitude")
    assert candidate.search_suggestion_uris == (
        "https://www.google.com/search?q=hubble+launch+date",
        "https://www.google.com/search?q=hubble+orbit+altitude",
    )
    (html,) = candidate.search_entry_html
    assert html == load()[3]["googleSearchSuggestions"]["htmls"][0]
    assert candidate.problems == ()


def test_snake_case_reads_the_same():
    assert parse_agent(to_snake(load())) == parse_agent(load())


def test_text_items_are_concatenated_and_offsets_span_them():
    data = [
        {"text": "שלום "},
        {
            "citations": {
                "citedChunks": [{"uri": "u"}],
                "inlineCitations": [{"endIndex": 14, "citedChunkIndices": [0]}],
            }
        },
        {"text": "world."},
    ]
    (candidate,) = parse_agent(data).candidates
    assert candidate.parts == ("שלום world.",)
    (segment,) = candidate.segments
    assert candidate.parts[0].encode()[: segment.end].decode() == "שלום world"


def test_several_citation_items_are_merged():
    data = [
        {"text": "One. Two."},
        {
            "citations": {
                "citedChunks": [{"uri": "a"}],
                "inlineCitations": [{"endIndex": 4, "citedChunkIndices": [0]}],
            }
        },
        {
            "citations": {
                "citedChunks": [{"uri": "b"}, {"uri": "c"}],
                "inlineCitations": [{"startIndex": 5, "endIndex": 9, "citedChunkIndices": [1]}],
            }
        },
    ]
    (candidate,) = parse_agent(data).candidates
    assert [source.uri for source in candidate.sources] == ["a", "b", "c"]
    assert [segment.source_indices for segment in candidate.segments] == [(0,), (2,)]


def test_items_without_known_keys_are_ignored():
    data = [{"toolCall": {"name": "search"}}, {"text": "Hi."}]
    assert parse_agent(data).candidates[0].parts == ("Hi.",)


def test_no_text_is_an_empty_answer():
    data = [{"googleSearchSuggestions": {"htmls": ["<div></div>"]}}]
    (candidate,) = parse_agent(data).candidates
    assert candidate.parts == ("",)
    assert candidate.search_entry_html == ("<div></div>",)


def test_uris_are_kept_raw():
    data = [
        {"text": "x"},
        {
            "citations": {
                "citedChunks": [{"uri": "javascript:alert(1)", "requiresAttribution": True}]
            }
        },
    ]
    assert parse_agent(data).candidates[0].sources[0].uri == "javascript:alert(1)"


INLINE = "[1].citations.inlineCitations[1]"


@pytest.mark.parametrize(
    ("text", "citation", "field", "message"),
    [
        ("Hello.", {"startIndex": 0, "endIndex": 7}, "endIndex", "out of range"),
        ("Hello.", {"startIndex": -3, "endIndex": 2}, "startIndex", "out of range"),
        ("Hello.", {"startIndex": 5, "endIndex": 3}, "startIndex", "after the end"),
        (EMOJI, {"startIndex": 8, "endIndex": 11}, "startIndex", "inside a multi-byte"),
        (EMOJI, {"startIndex": 0, "endIndex": 9}, "endIndex", "inside a multi-byte"),
        ("Hello.", {"startIndex": 1}, "endIndex", "missing"),
    ],
)
def test_bad_span_is_a_problem(text: str, citation: dict[str, Any], field: str, message: str):
    good = {"endIndex": 5, "citedChunkIndices": [0]}
    (candidate,) = parse_agent(
        cited(text, [good, {**citation, "citedChunkIndices": [1]}])
    ).candidates
    assert candidate.segments == (Segment(part=0, start=0, end=5, text="", source_indices=(0,)),)
    (problem,) = candidate.problems
    assert problem.field == f"{INLINE}.{field}"
    assert message in problem.message


def test_bad_chunk_index_is_dropped():
    citation = {"endIndex": 3, "citedChunkIndices": [1, 2, -1]}
    (candidate,) = parse_agent(cited("Hello.", [citation])).candidates
    assert candidate.segments[0].source_indices == (1,)
    assert [problem.field for problem in candidate.problems] == [
        "[1].citations.inlineCitations[0].citedChunkIndices[1]",
        "[1].citations.inlineCitations[0].citedChunkIndices[2]",
    ]
    assert "citedChunks has 2 entries" in candidate.problems[0].message


def _mutate(path: list[Any], value: Any) -> list[Any]:
    data = copy.deepcopy(load())
    target = data
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return data


CIT = [2, "citations"]
SUG = [3, "googleSearchSuggestions"]


@pytest.mark.parametrize(
    ("path", "value", "field"),
    [
        ([0], "text", "[0]"),
        ([0], None, "[0]"),
        ([0, "text"], 3, "[0].text"),
        ([0, "text"], ["a"], "[0].text"),
        (CIT, [], "[2].citations"),
        ([*CIT, "citedChunks"], {}, "[2].citations.citedChunks"),
        ([*CIT, "citedChunks", 0, "uri"], 1, "[2].citations.citedChunks[0].uri"),
        ([*CIT, "citedChunks", 0, "title"], None, None),  # null is unset: accepted
        (
            [*CIT, "citedChunks", 0, "requiresAttribution"],
            "true",
            "[2].citations.citedChunks[0].requiresAttribution",
        ),
        (
            [*CIT, "citedChunks", 0, "requiresAttribution"],
            1,
            "[2].citations.citedChunks[0].requiresAttribution",
        ),
        ([*CIT, "inlineCitations"], "x", "[2].citations.inlineCitations"),
        ([*CIT, "inlineCitations", 0], 5, "[2].citations.inlineCitations[0]"),
        (
            [*CIT, "inlineCitations", 0, "endIndex"],
            "end",
            "[2].citations.inlineCitations[0].endIndex",
        ),
        (
            [*CIT, "inlineCitations", 0, "startIndex"],
            False,
            "[2].citations.inlineCitations[0].startIndex",
        ),
        (
            [*CIT, "inlineCitations", 1, "citedChunkIndices"],
            {"0": 1},
            "[2].citations.inlineCitations[1].citedChunkIndices",
        ),
        (
            [*CIT, "inlineCitations", 1, "citedChunkIndices", 0],
            0.5,
            "[2].citations.inlineCitations[1].citedChunkIndices[0]",
        ),
        (SUG, "html", "[3].googleSearchSuggestions"),
        ([*SUG, "htmls"], "<div>", "[3].googleSearchSuggestions.htmls"),
        ([*SUG, "htmls", 0], 0, "[3].googleSearchSuggestions.htmls[0]"),
        ([*SUG, "webSearchQueries", 0], "q", "[3].googleSearchSuggestions.webSearchQueries[0]"),
        (
            [*SUG, "webSearchQueries", 1, "query"],
            2,
            "[3].googleSearchSuggestions.webSearchQueries[1].query",
        ),
        (
            [*SUG, "webSearchQueries", 1, "uri"],
            [],
            "[3].googleSearchSuggestions.webSearchQueries[1].uri",
        ),
    ],
)
def test_malformed_field_is_named(path: list[Any], value: Any, field: str | None):
    data = _mutate(path, value)
    if field is None:
        parse_agent(data)
        return
    with pytest.raises(ImportFormatError) as caught:
        parse_agent(data)
    assert caught.value.field == field


def test_not_a_list():
    with pytest.raises(ImportFormatError, match="array of items"):
        parse_agent({"text": "hi"})


def test_nothing_understood():
    with pytest.raises(ImportFormatError, match="no item holds"):
        parse_agent([{"toolCall": {}}])


def test_both_spellings_of_one_key():
    with pytest.raises(ImportFormatError) as caught:
        parse_agent([{"googleSearchSuggestions": {}, "google_search_suggestions": {}}])
    assert caught.value.field == "[0].google_search_suggestions"
