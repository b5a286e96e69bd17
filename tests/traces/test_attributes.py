"""The attribute readers, one table row per convention and shape (no Django)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from grounding_app.traces.assemble import NO_ANSWER, NO_FACTS, Assembled, Dropped, assemble
from grounding_app.traces.attributes import (
    LLM,
    RETRIEVER,
    Document,
    Event,
    Message,
    Span,
    generic_key,
    read_span,
)

TRACE = "0af7651916cd43dd8448eb211c80319c"


def span(attributes: dict[str, Any], *events: Event, parent: str = "b7ad6b7169203331") -> Span:
    return Span(TRACE, "00f067aa0ba902b7", parent, "span", 1, 2, attributes, tuple(events))


SYSTEM = Message("system", "Use the context.")
USER = Message("user", "When did it open?")

LLM_ROWS: list[tuple[str, dict[str, Any], tuple[Event, ...], tuple[Message, ...], str]] = [
    (
        "OpenLLMetry gen_ai.prompt/completion",
        {
            "gen_ai.system": "openai",
            "llm.request.type": "chat",
            "gen_ai.prompt.0.role": "system",
            "gen_ai.prompt.0.content": "Use the context.",
            "gen_ai.prompt.1.role": "user",
            "gen_ai.prompt.1.content": "When did it open?",
            "gen_ai.completion.0.role": "assistant",
            "gen_ai.completion.0.content": "It opened in 1937.",
        },
        (),
        (SYSTEM, USER),
        "It opened in 1937.",
    ),
    (
        "GenAI gen_ai.input.messages / output.messages JSON",
        {
            "gen_ai.operation.name": "chat",
            "gen_ai.system_instructions": json.dumps(
                [{"type": "text", "content": "Use the context."}]
            ),
            "gen_ai.input.messages": json.dumps(
                [{"role": "user", "parts": [{"type": "text", "content": "When did it open?"}]}]
            ),
            "gen_ai.output.messages": json.dumps(
                [
                    {
                        "role": "assistant",
                        "parts": [{"type": "text", "content": "It opened in 1937."}],
                        "finish_reason": "stop",
                    }
                ]
            ),
        },
        (),
        (SYSTEM, USER),
        "It opened in 1937.",
    ),
    (
        "GenAI span events gen_ai.*.message and gen_ai.choice",
        {"gen_ai.operation.name": "chat"},
        (
            Event("gen_ai.system.message", {"content": "Use the context."}),
            Event("gen_ai.user.message", {"content": "When did it open?"}),
            Event(
                "gen_ai.choice",
                {"message": json.dumps({"role": "assistant", "content": "It opened in 1937."})},
            ),
        ),
        (SYSTEM, USER),
        "It opened in 1937.",
    ),
    (
        "GenAI older events gen_ai.content.prompt / completion",
        {"gen_ai.operation.name": "text_completion"},
        (
            Event("gen_ai.content.prompt", {"gen_ai.prompt": "When did it open?"}),
            Event("gen_ai.content.completion", {"gen_ai.completion": "It opened in 1937."}),
        ),
        (USER,),
        "It opened in 1937.",
    ),
    (
        "OpenInference llm.input_messages / output_messages",
        {
            "openinference.span.kind": "LLM",
            "llm.input_messages.0.message.role": "system",
            "llm.input_messages.0.message.content": "Use the context.",
            "llm.input_messages.1.message.role": "user",
            "llm.input_messages.1.message.content": "When did it open?",
            "llm.output_messages.0.message.role": "assistant",
            "llm.output_messages.0.message.content": "It opened in 1937.",
            "output.value": '{"choices": [{"message": {"content": "ignored"}}]}',
        },
        (),
        (SYSTEM, USER),
        "It opened in 1937.",
    ),
    (
        "OpenInference input.value / output.value as text",
        {
            "openinference.span.kind": "LLM",
            "input.value": "When did it open?",
            "output.value": "It opened in 1937.",
        },
        (),
        (USER,),
        "It opened in 1937.",
    ),
    (
        "OpenInference output.value as a provider's JSON response",
        {
            "openinference.span.kind": "LLM",
            "input.value": json.dumps(
                {"messages": [{"role": "user", "content": "When did it open?"}]}
            ),
            "output.value": json.dumps(
                {"choices": [{"message": {"role": "assistant", "content": "It opened in 1937."}}]}
            ),
        },
        (),
        (USER,),
        "It opened in 1937.",
    ),
]


@pytest.mark.parametrize(
    ("attributes", "events", "prompt", "completion"),
    [row[1:] for row in LLM_ROWS],
    ids=[row[0] for row in LLM_ROWS],
)
def test_llm_spans(
    attributes: dict[str, Any],
    events: tuple[Event, ...],
    prompt: tuple[Message, ...],
    completion: str,
) -> None:
    reading = read_span(span(attributes, *events))
    assert reading.role == LLM
    assert reading.prompt == prompt
    assert reading.completion == completion
    assert reading.unknown_keys == frozenset()


DOCS = (Document("The bridge opened in 1937.", "d1", 0.9), Document("It is red.", "d2", 0.5))

RETRIEVER_ROWS: list[tuple[str, dict[str, Any], tuple[Document, ...]]] = [
    (
        "OpenInference retrieval.documents",
        {
            "openinference.span.kind": "RETRIEVER",
            "input.value": "When did it open?",
            "retrieval.documents.0.document.id": "d1",
            "retrieval.documents.0.document.content": "The bridge opened in 1937.",
            "retrieval.documents.0.document.score": 0.9,
            "retrieval.documents.1.document.id": "d2",
            "retrieval.documents.1.document.content": "It is red.",
            "retrieval.documents.1.document.score": 0.5,
        },
        DOCS,
    ),
    (
        "OpenLLMetry traceloop.entity.output of LangChain documents",
        {
            "traceloop.span.kind": "task",
            "traceloop.entity.input": json.dumps({"args": ["When did it open?"]}),
            "traceloop.entity.output": json.dumps(
                [
                    {
                        "page_content": "The bridge opened in 1937.",
                        "metadata": {"id": "d1"},
                        "score": 0.9,
                    },
                    {"page_content": "It is red.", "metadata": {"id": "d2"}, "score": 0.5},
                ]
            ),
        },
        DOCS,
    ),
    (
        "OpenLLMetry traceloop.entity.output of plain strings under documents",
        {
            "traceloop.span.kind": "task",
            "traceloop.entity.output": json.dumps(
                {"documents": ["The bridge opened in 1937.", "It is red."]}
            ),
        },
        (Document("The bridge opened in 1937."), Document("It is red.")),
    ),
]


@pytest.mark.parametrize(
    ("attributes", "documents"),
    [row[1:] for row in RETRIEVER_ROWS],
    ids=[row[0] for row in RETRIEVER_ROWS],
)
def test_retriever_spans(attributes: dict[str, Any], documents: tuple[Document, ...]) -> None:
    reading = read_span(span(attributes))
    assert reading.role == RETRIEVER
    assert reading.documents == documents
    assert reading.completion == ""


NEITHER_ROWS: list[tuple[str, dict[str, Any]]] = [
    ("an HTTP server span", {"http.request.method": "GET", "url.path": "/ask"}),
    (
        "an OpenInference chain with output.value",
        {"openinference.span.kind": "CHAIN", "output.value": "x"},
    ),
    (
        "an OpenInference embedding",
        {"openinference.span.kind": "EMBEDDING", "embedding.model_name": "m"},
    ),
    ("a task whose output is not documents", {"traceloop.entity.output": json.dumps({"n": 3})}),
    ("a chat span without a completion", {"gen_ai.operation.name": "embeddings"}),
]


@pytest.mark.parametrize(
    "attributes", [row[1] for row in NEITHER_ROWS], ids=[row[0] for row in NEITHER_ROWS]
)
def test_spans_of_no_rag_answer(attributes: dict[str, Any]) -> None:
    assert read_span(span(attributes)).role is None


def test_unknown_keys_on_llm_spans_are_reported_with_indices_as_n() -> None:
    reading = read_span(
        span(
            {
                "openinference.span.kind": "LLM",
                "output.value": "Yes.",
                "llm.token_count.total": 12,
                "acme.prompt.3.version": "v7",
                "gen_ai.completion.0.reasoning": "hidden",
            }
        )
    )
    assert reading.unknown_keys == {"acme.prompt.N.version", "gen_ai.completion.N.reasoning"}
    assert generic_key("retrieval.documents.12.document.content") == (
        "retrieval.documents.N.document.content"
    )


def llm(completion: str, *prompt: tuple[str, str], end: int = 2) -> Span:
    attributes: dict[str, Any] = {"gen_ai.operation.name": "chat"}
    for i, (role, content) in enumerate(prompt):
        attributes[f"gen_ai.prompt.{i}.role"] = role
        attributes[f"gen_ai.prompt.{i}.content"] = content
    if completion:
        attributes["gen_ai.completion.0.content"] = completion
    return Span(TRACE, f"{end:016x}", "b7ad6b7169203331", "chat", 1, end, attributes)


def retriever(*texts: str) -> Span:
    attributes: dict[str, Any] = {"openinference.span.kind": "RETRIEVER"}
    for i, text in enumerate(texts):
        attributes[f"retrieval.documents.{i}.document.content"] = text
        attributes[f"retrieval.documents.{i}.document.id"] = f"doc-{i}"
    return Span(TRACE, "1111111111111111", "b7ad6b7169203331", "retrieve", 1, 2, attributes)


def test_a_trace_becomes_one_line_of_the_grounding_schema() -> None:
    result = assemble(
        TRACE,
        "svc",
        [
            retriever("A is 1.", "B is 2."),
            retriever("B is 2.", "C is 3."),
            llm("A is 1.", ("user", "What is A?")),
        ],
    )
    assert isinstance(result, Assembled)
    assert result.line == {
        "id": TRACE,
        "source": "svc",
        "facts": [
            {"text": "A is 1.", "attributes": {"document": "doc-0"}},
            {"text": "B is 2.", "attributes": {"document": "doc-0"}},
            {"text": "C is 3.", "attributes": {"document": "doc-1"}},
        ],
        "claim": "A is 1.",
        "meta": {"service": "svc", "question": "What is A?"},
        "time": 1,  # the earliest span's start (ns): the answer counts on its own day
    }


def test_the_last_llm_call_is_the_answer() -> None:
    first = llm("Rewritten: what is A?", ("user", "what's A"), end=2)
    last = llm("A is 1.", ("user", "What is A?"), end=9)
    result = assemble(TRACE, "svc", [last, retriever("A is 1."), first])
    assert isinstance(result, Assembled)
    assert result.line["claim"] == "A is 1."


def test_without_retrieval_the_prompt_context_is_the_facts() -> None:
    result = assemble(
        TRACE, "svc", [llm("A is 1.", ("system", "Context: A is 1."), ("user", "What is A?"))]
    )
    assert isinstance(result, Assembled)
    assert [f["text"] for f in result.line["facts"]] == ["Context: A is 1."]
    inline = assemble(TRACE, "svc", [llm("A is 1.", ("user", "Given A is 1, what is A?"))])
    assert isinstance(inline, Assembled)
    assert [f["text"] for f in inline.line["facts"]] == ["Given A is 1, what is A?"]


def test_traces_without_an_answer_or_facts_are_dropped() -> None:
    assert assemble(TRACE, "svc", [retriever("A is 1.")]) == Dropped(NO_ANSWER)
    assert assemble(TRACE, "svc", [llm("", ("user", "What is A?"))]) == Dropped(NO_ANSWER)
    assert assemble(TRACE, "svc", [llm("A is 1.")]) == Dropped(NO_FACTS)


@pytest.mark.parametrize("index", ["9" * 5000, "²", "\u0661"])
def test_an_index_int_cannot_read_is_no_index(index: str) -> None:
    """Issue 32, item 14: `int()` of a 5,000-digit index passed Python's digit limit and
    "²" passed `isdigit`, both raising out of the reader; such a key is simply unknown."""
    reading = read_span(
        span(
            {
                "gen_ai.operation.name": "chat",
                f"gen_ai.prompt.{index}.content": "lost",
                "gen_ai.prompt.0.content": "When did it open?",
                "gen_ai.completion.0.content": "In 1901.",
            }
        )
    )
    assert reading.prompt == (Message("", "When did it open?"),)
    assert reading.completion == "In 1901."
