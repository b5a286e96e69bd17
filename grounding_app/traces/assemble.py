"""One trace's spans to one batch line, or the reason its spans are dropped.

Pure Python, no Django. The answer is the completion of the trace's last-ending LLM
span; the question, the last user message of its prompt; the facts, every document the
trace's retriever spans returned (the same text once), else the prompt's context (its
system messages and earlier user messages; failing those, the user's prompt itself,
which then holds the context inline). The line is one of the shared grounding schema
(`{id, source, facts, claim, meta}`), the shape batch jobs already read, so the batch
pages show its claims with citations into those documents.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from grounding_app.engine import MAX_FACT_CHARS, MAX_FACTS
from grounding_app.traces.attributes import LLM, RETRIEVER, Document, Message, Span, read_span

NO_ANSWER = "no LLM span with a completion in its trace"
NO_FACTS = "an answer without facts: no retrieved documents and no prompt"


@dataclass(frozen=True)
class Assembled:
    line: dict[str, Any]
    unknown_keys: Counter[str] = field(default_factory=Counter)


@dataclass(frozen=True)
class Dropped:
    reason: str
    unknown_keys: Counter[str] = field(default_factory=Counter)


def _question(prompt: Sequence[Message]) -> str:
    users = [m.content for m in prompt if m.role in ("user", "human", "")]
    return users[-1] if users else ""


def _context(prompt: Sequence[Message]) -> list[Document]:
    """Facts from the prompt when nothing was retrieved: what came before the question."""
    question_at = max(
        (i for i, m in enumerate(prompt) if m.role in ("user", "human", "")), default=-1
    )
    before = [
        Document(m.content)
        for i, m in enumerate(prompt)
        if i != question_at and m.role in ("system", "developer", "user", "human", "")
    ]
    if before:
        return before
    return [Document(prompt[question_at].content)] if question_at >= 0 else []


def _fact(document: Document) -> dict[str, Any]:
    attributes = {}
    if document.id:
        attributes["document"] = document.id[:200]
    if document.title:
        attributes["title"] = document.title[:200]
    if document.score is not None:
        attributes["score"] = f"{document.score:.4g}"
    return {"text": document.content[:MAX_FACT_CHARS], "attributes": attributes}


def assemble(trace_id: str, service: str, spans: Sequence[Span]) -> Assembled | Dropped:
    """The trace as a batch line, or why its spans belong to no RAG answer."""
    unknown: Counter[str] = Counter()
    answers: list[tuple[int, Span, Any]] = []
    documents: list[Document] = []
    for span in spans:
        reading = read_span(span)
        unknown.update(reading.unknown_keys)
        if reading.role == LLM and reading.completion.strip():
            answers.append((span.end_ns, span, reading))
        elif reading.role == RETRIEVER:
            documents.extend(reading.documents)
    if not answers:
        return Dropped(NO_ANSWER, unknown)
    _, _, llm = max(answers, key=lambda found: (found[0], found[1].span_id))
    facts = list({d.content: d for d in documents}.values())  # the same text once
    facts = facts or _context(llm.prompt)
    if not facts:
        return Dropped(NO_FACTS, unknown)
    meta = {"service": service}
    if llm.model:
        meta["model"] = llm.model
    if question := _question(llm.prompt):
        meta["question"] = question
    line: dict[str, Any] = {
        "id": trace_id,
        "source": service,
        "facts": [_fact(d) for d in facts[:MAX_FACTS]],
        "claim": llm.completion,
        "meta": meta,
    }
    if started := [span.start_ns for span in spans if span.start_ns > 0]:
        # The trace's start: the answer counts on its own day (batch/lines.py reads it).
        line["time"] = min(started)
    return Assembled(line, unknown)
