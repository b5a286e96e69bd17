"""Langfuse traces: where the answer and the retrieved documents are found, in the
API's and the UI export's shapes, and each way a trace can lack them named."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from grounding_app.engine import Fact
from grounding_app.formats._reader import ImportFormatError
from grounding_app.formats.langfuse import (
    documents,
    looks_like_trace,
    parse_trace,
    text_of,
    traces_of_file,
)

DATA = Path(__file__).resolve().parents[1] / "data"


def trace(**fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"id": "t-1", "name": "rag", "sessionId": "s-1", "latency": 1.0}
    base.update(fields)
    return base


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ("plain", "plain"),
        ({"content": "c"}, "c"),
        (
            {
                "role": "assistant",
                "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
            },
            "ab",
        ),
        ({"text": "t"}, "t"),
        ({"answer": "x", "sources": []}, "x"),
        ({"output": {"response": "deep"}}, "deep"),
        ({"choices": [{"message": {"role": "assistant", "content": "openai"}}]}, "openai"),
        ({"choices": [{"text": "completion"}]}, "completion"),
        ([{"role": "user", "content": "q"}, {"role": "assistant", "content": "last"}], "last"),
        ({"message": {"content": "m"}}, "m"),
        ({"score": 1}, None),
        (None, None),
        (3, None),
        ([{"role": "user", "content": "q"}], None),
    ],
)
def test_text_of(output: object, expected: str | None) -> None:
    assert text_of(output) == expected


@pytest.mark.parametrize(
    ("output", "strings", "expected"),
    [
        (
            [{"page_content": "p", "metadata": {"source": "s.md", "page": 2, "tags": ["x"]}}],
            False,
            [("p", {"source": "s.md", "page": "2"})],
        ),
        ([{"pageContent": "js", "metadata": {}}], False, [("js", {})]),
        (
            {"documents": [{"text": "t", "id": "d1", "score": 0.5}]},
            False,
            [("t", {"id": "d1", "score": "0.5"})],
        ),
        ({"nodes": [{"node": {"text": "n"}, "score": 0.9}]}, False, [("n", {"score": "0.9"})]),
        (
            {"results": [{"content": "c", "url": "https://e.org"}]},
            False,
            [("c", {"url": "https://e.org"})],
        ),
        ([{"chunkText": "ck"}], False, [("ck", {})]),
        (["s1", "s2"], True, [("s1", {}), ("s2", {})]),
        (["s1", "s2"], False, None),  # strings only from a retriever
        ([{"page_content": "p"}, {"other": 1}], False, None),  # all documents or none
        ({"answer": "x"}, False, None),
        ([], True, None),
        ("text", True, None),
    ],
)
def test_documents(output: object, strings: bool, expected: object) -> None:
    assert documents(output, strings) == expected


def test_the_api_shape_with_a_retriever_span_and_a_generation() -> None:
    data = trace(
        input={"question": "When?"},
        output=None,
        tags=["a", "b"],
        metadata={"tenant": "t1", "nested": {"x": 1}},
        environment="production",
        observations=[
            {
                "type": "GENERATION",
                "name": "first",
                "startTime": "2026-01-01T00:00:02Z",
                "output": {"content": "draft"},
            },
            {
                "type": "GENERATION",
                "name": "final",
                "startTime": "2026-01-01T00:00:03Z",
                "output": {"content": "Open at 9."},
            },
            {
                "type": "SPAN",
                "name": "fetch",
                "startTime": "2026-01-01T00:00:01Z",
                "output": {
                    "documents": [
                        {"page_content": "Opens at 9 am.", "metadata": {"source": "h.md"}}
                    ]
                },
            },
            {"type": "EVENT", "name": "log", "output": ["not", "documents"]},
        ],
    )
    record = parse_trace(data)
    assert record.answer == "Open at 9."  # the last generation, in time order
    assert record.facts == (Fact("Opens at 9 am.", {"retriever": "fetch", "source": "h.md"}),)
    assert record.external_id == "t-1"
    assert record.meta == {
        "format": "langfuse",
        "trace_id": "t-1",
        "question": "When?",
        "session_id": "s-1",
    }
    assert record.labels == {
        "tenant": "t1",
        "name": "rag",
        "environment": "production",
        "tags": "a, b",
    }


def test_retriever_strings_and_trace_output_win() -> None:
    record = parse_trace(
        trace(
            output="From the trace.",
            observations=[
                {"type": "RETRIEVER", "name": "idx", "output": ["שלום 😀", "b"]},
                {"type": "GENERATION", "output": "From a generation."},
            ],
        )
    )
    assert record.answer == "From the trace."
    assert [f.text for f in record.facts] == ["שלום 😀", "b"]


def test_contexts_from_input_then_metadata_when_observations_are_ids() -> None:
    from_input = parse_trace(trace(input={"contexts": ["c1"]}, output="a", observations=["o1"]))
    assert from_input.facts == (Fact("c1", {"from": "input.contexts"}),)
    from_metadata = parse_trace(trace(output="a", metadata={"context": "one passage"}))
    assert from_metadata.facts == (Fact("one passage", {"from": "metadata.context"}),)


@pytest.mark.parametrize(
    ("data", "field", "words"),
    [
        (trace(output=None, observations=[]), "output", "no output and no generation"),
        (trace(output={"score": 1}), "output", "no answer text"),
        (trace(output="  "), "output", "the answer is empty"),
        (trace(output="a", observations=["o1", "o2"]), "observations", "ids only"),
        (trace(output="a"), "observations", "no retrieved documents"),
        (trace(output="a", observations={"x": 1}), "observations", "expected a list"),
        ("a string", "", "a Langfuse trace is an object"),
    ],
)
def test_each_bad_trace_says_what_is_missing(data: object, field: str, words: str) -> None:
    with pytest.raises(ImportFormatError) as caught:
        parse_trace(data)
    assert caught.value.field == field and words in caught.value.message


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (trace(output="a"), True),
        ({"observations": [], "input": "x"}, True),
        ({"id": "x", "input": "q", "output": "a"}, False),  # no field only Langfuse has
        ({"sessionId": "s"}, False),  # nothing to read
        ([trace(output="a")], False),
    ],
)
def test_looks_like_trace(data: object, expected: bool) -> None:
    assert looks_like_trace(data) is expected


def test_traces_of_file() -> None:
    one = trace(output="a")
    assert traces_of_file([one, {"x": 1}]) == [one, {"x": 1}]
    assert traces_of_file({"data": [one], "meta": {"page": 1}}) == [one]
    assert traces_of_file(one) == [one]
    assert traces_of_file([{"citations": {}}]) is None  # an agent session output
    assert traces_of_file({"data": [], "meta": {}}) is None


def test_the_example_export_reads_three_traces_and_names_the_fourth() -> None:
    traces = traces_of_file(json.loads((DATA / "langfuse_traces.json").read_text("utf-8")))
    assert traces is not None and len(traces) == 4
    records = [parse_trace(t) for t in traces[:3]]
    assert [len(r.facts) for r in records] == [2, 2, 1]
    assert records[1].answer == "הספרייה נפתחת ביום שישי בשעה 8. 📚 בשבת היא סגורה."
    with pytest.raises(ImportFormatError, match="no retrieved documents"):
        parse_trace(traces[3])
