"""A small RAG function instrumented as OpenLLMetry and OpenInference instrument one,
for the traces receiver's live tests and its throughput bench (offline only).

`answer(tracer, question, convention)` opens a root span, a retriever span with the
documents it found and an LLM span with its prompt and completion, each with the
attributes the named library sets (OpenLLMetry: `traceloop.*` on the retriever task and
`gen_ai.prompt.N.*` / `gen_ai.completion.N.*` on the LLM call; OpenInference:
`retrieval.documents.N.document.*`, `llm.input_messages.N.message.*`,
`llm.output_messages.N.message.*`, `input.value` / `output.value`). The answer repeats
the best document's sentence and, for every third question, adds one that no document
supports, so checked answers differ.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

OPENLLMETRY = "openllmetry"
OPENINFERENCE = "openinference"
CONVENTIONS = (OPENLLMETRY, OPENINFERENCE)


@dataclass(frozen=True)
class Doc:
    id: str
    title: str
    text: str


DOCS = (
    Doc(
        "kb-1",
        "Eiffel Tower",
        "The Eiffel Tower was completed in 1889 for the World's Fair in Paris.",
    ),
    Doc(
        "kb-2", "Golden Gate", "The Golden Gate Bridge opened to traffic in 1937 in San Francisco."
    ),
    Doc(
        "kb-3",
        "Sydney Opera",
        "The Sydney Opera House was designed by the Danish architect Jørn Utzon.",
    ),
    Doc("kb-4", "Great Wall", "The Great Wall of China is more than 21,000 kilometres long."),
    Doc("kb-5", "Colosseum", "The Colosseum in Rome could hold about 50,000 spectators."),
    Doc("kb-6", "Big Ben", "Big Ben is the nickname of the great bell of the clock in London."),
)
UNSUPPORTED = "It was painted bright green by its builders every spring."


def question(n: int) -> str:
    return f"Tell me about {DOCS[n % len(DOCS)].title} (question {n})."


def retrieve(n: int, k: int = 3) -> list[Doc]:
    return [DOCS[(n + i) % len(DOCS)] for i in range(k)]


def completion(n: int, docs: list[Doc]) -> str:
    text = docs[0].text
    return f"{text} {UNSUPPORTED}" if n % 3 == 2 else text


def answer(tracer: Any, n: int, convention: str) -> str:
    """Run the RAG function for question `n` under `tracer`; returns its answer."""
    asked = question(n)
    with tracer.start_as_current_span("rag.query") as root:
        if convention == OPENINFERENCE:
            root.set_attribute("openinference.span.kind", "CHAIN")
            root.set_attribute("input.value", asked)
        else:
            root.set_attribute("traceloop.span.kind", "workflow")
            root.set_attribute("traceloop.entity.name", "rag.query")
        with tracer.start_as_current_span("retrieve") as span:
            docs = retrieve(n)
            if convention == OPENINFERENCE:
                span.set_attribute("openinference.span.kind", "RETRIEVER")
                span.set_attribute("input.value", asked)
                for i, doc in enumerate(docs):
                    prefix = f"retrieval.documents.{i}.document"
                    span.set_attribute(f"{prefix}.id", doc.id)
                    span.set_attribute(f"{prefix}.content", doc.text)
                    span.set_attribute(f"{prefix}.score", 1.0 - i / 10)
                    span.set_attribute(f"{prefix}.metadata", json.dumps({"title": doc.title}))
            else:
                span.set_attribute("traceloop.span.kind", "task")
                span.set_attribute("traceloop.entity.name", "retrieve")
                span.set_attribute(
                    "traceloop.entity.input", json.dumps({"args": [asked], "kwargs": {}})
                )
                span.set_attribute(
                    "traceloop.entity.output",
                    json.dumps(
                        [
                            {"page_content": d.text, "metadata": {"id": d.id, "title": d.title}}
                            for d in docs
                        ]
                    ),
                )
        text = completion(n, docs)
        system = "Answer from the context only.\n\nContext:\n" + "\n".join(d.text for d in docs)
        with tracer.start_as_current_span("chat gpt-4o-mini") as span:
            if convention == OPENINFERENCE:
                span.set_attribute("openinference.span.kind", "LLM")
                span.set_attribute("llm.model_name", "gpt-4o-mini")
                span.set_attribute("llm.input_messages.0.message.role", "system")
                span.set_attribute("llm.input_messages.0.message.content", system)
                span.set_attribute("llm.input_messages.1.message.role", "user")
                span.set_attribute("llm.input_messages.1.message.content", asked)
                span.set_attribute("llm.output_messages.0.message.role", "assistant")
                span.set_attribute("llm.output_messages.0.message.content", text)
                span.set_attribute("llm.token_count.total", 120)
                span.set_attribute("output.value", text)
                span.set_attribute("acme.prompt_version", "v7")
            else:
                span.set_attribute("gen_ai.system", "openai")
                span.set_attribute("gen_ai.operation.name", "chat")
                span.set_attribute("llm.request.type", "chat")
                span.set_attribute("gen_ai.request.model", "gpt-4o-mini")
                span.set_attribute("gen_ai.response.model", "gpt-4o-mini-2024-07-18")
                span.set_attribute("gen_ai.prompt.0.role", "system")
                span.set_attribute("gen_ai.prompt.0.content", system)
                span.set_attribute("gen_ai.prompt.1.role", "user")
                span.set_attribute("gen_ai.prompt.1.content", asked)
                span.set_attribute("gen_ai.completion.0.role", "assistant")
                span.set_attribute("gen_ai.completion.0.content", text)
                span.set_attribute("gen_ai.completion.0.finish_reason", "stop")
                span.set_attribute("gen_ai.usage.input_tokens", 100)
                span.set_attribute("acme.prompt_version", "v7")
        return text
