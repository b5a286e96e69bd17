"""The test trace the Connect page sends: one RAG answer as OpenInference writes it (a
root span, a retriever span with two documents, an LLM span with the completion), so
a team sees the whole path (receiving, assembling, checking) work before wiring its
own exporter."""

from __future__ import annotations

import json
import secrets
import time

from grounding_app.traces.attributes import Span
from grounding_app.traces.otlp import Received

SERVICE = "connect-page-test"
QUESTION = "When was the Eiffel Tower completed?"
DOCUMENTS = (
    "The Eiffel Tower was completed in 1889 for the World's Fair in Paris.",
    "The tower is 330 metres tall and was the tallest structure in the world until 1930.",
)
ANSWER = (
    "The Eiffel Tower was completed in 1889 for the World's Fair in Paris. "
    "It was painted bright green by its builders every spring."
)


def sample_trace() -> list[Received]:
    """A fresh trace (new ids each time): one supported claim and one unsupported."""
    trace_id, root_id = secrets.token_hex(16), secrets.token_hex(8)
    now = time.time_ns()
    root = Span(
        trace_id,
        root_id,
        "",
        "rag.query",
        now,
        now + 3_000_000,
        {"openinference.span.kind": "CHAIN", "input.value": QUESTION, "output.value": ANSWER},
    )
    documents: dict[str, object] = {"openinference.span.kind": "RETRIEVER", "input.value": QUESTION}
    for i, text in enumerate(DOCUMENTS):
        documents[f"retrieval.documents.{i}.document.id"] = f"doc-{i + 1}"
        documents[f"retrieval.documents.{i}.document.content"] = text
        documents[f"retrieval.documents.{i}.document.metadata"] = json.dumps({"title": "Eiffel"})
    retriever = Span(
        trace_id, secrets.token_hex(8), root_id, "retrieve", now, now + 1_000_000, documents
    )
    llm = Span(
        trace_id,
        secrets.token_hex(8),
        root_id,
        "chat",
        now + 1_000_000,
        now + 3_000_000,
        {
            "openinference.span.kind": "LLM",
            "llm.input_messages.0.message.role": "user",
            "llm.input_messages.0.message.content": QUESTION,
            "llm.output_messages.0.message.role": "assistant",
            "llm.output_messages.0.message.content": ANSWER,
            "output.value": ANSWER,
        },
    )
    return [Received(SERVICE, span) for span in (root, retriever, llm)]
