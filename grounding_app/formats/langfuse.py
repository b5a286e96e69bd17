"""Langfuse traces: the answer a traced LLM app gave and the documents it retrieved.

A trace is read as Langfuse's public API returns it (`GET /api/public/traces/{id}`, or
the list endpoint's items) and as its UI exports a traces table (a JSON array, or JSONL
one trace a line): `id`, `name`, `input`, `output`, `metadata`, `tags` and, with full
details, `observations`, each with a `type` (`SPAN`, `GENERATION`, `EVENT`, and the
newer `RETRIEVER`, `TOOL`, `AGENT`, `CHAIN`, ...), `name`, `input` and `output`.

- **The answer** is the trace's `output`; when the trace has none, the output of its last
  `GENERATION`. An output is text, or an object holding it the usual ways: `content`
  (text or a list of text parts), `text`, `answer`, `output`, `response`, `completion`,
  a `message`, OpenAI's `choices[0].message.content`, or a chat transcript's last
  assistant message.
- **The facts** are the documents its retrievers returned: the output of every
  `RETRIEVER` observation, and of any other observation (not a generation) whose output
  holds documents: a list of LangChain `Document`s (`page_content` / `pageContent` and
  `metadata`), LlamaIndex nodes (`node.text`), objects with `text`, `content` or
  `chunkText`, or an object with such a list under `documents`, `contexts`, `results`,
  `nodes`, `sources` or `chunks`. A plain list of strings counts only from a
  `RETRIEVER` or an observation named like one (retrieve, search, context). A
  document's metadata become the fact's attributes, with the observation's name as
  `retriever`. A trace without such observations (the list endpoint gives only their
  ids) is read for `contexts`, `retrieved_contexts`, `documents` or `context` in its
  `input`, then its `metadata`.

The trace's id names the line; its name, environment, release, version and tags, and
its metadata's plain values, are labels the job's results can be grouped by.
"""

from __future__ import annotations

import re
from typing import Any

from grounding_app.engine import Fact
from grounding_app.formats._reader import fail
from grounding_app.formats.check_grounding import json_type
from grounding_app.formats.records import MAX_LABEL_CHARS, AnswerRecord, short_labels

FORMAT = "langfuse"

# Fields only a Langfuse trace has; with input, output or observations they make one.
SIGNAL_KEYS = frozenset(
    {"observations", "htmlPath", "projectId", "sessionId", "latency", "totalCost", "bookmarked"}
)
_CONTENT_KEYS = frozenset({"input", "output", "observations"})
_TEXT_KEYS = ("content", "text", "answer", "output", "response", "completion", "message")
_DOC_TEXT_KEYS = ("page_content", "pageContent", "text", "content", "chunkText", "chunk")
_DOC_LIST_KEYS = (
    "documents",
    "contexts",
    "retrieved_contexts",
    "results",
    "nodes",
    "sources",
    "chunks",
    "docs",
)
_INPUT_CONTEXT_KEYS = ("contexts", "retrieved_contexts", "documents", "context")
_QUESTION_KEYS = ("question", "query", "input", "user_input", "prompt")
_DOC_ATTRIBUTE_KEYS = ("id", "source", "url", "uri", "title", "score")
_RETRIEVER_NAME = re.compile(r"retriev|search|context|rag|vector|knowledge", re.IGNORECASE)
_NESTING = 6  # how deep an output is searched for its text


def looks_like_trace(data: object) -> bool:
    """Whether decoded JSON is one Langfuse trace (see SIGNAL_KEYS)."""
    return (
        isinstance(data, dict)
        and bool(SIGNAL_KEYS & data.keys())
        and bool(_CONTENT_KEYS & data.keys())
    )


def traces_of_file(data: object) -> list[Any] | None:
    """The traces of a whole-file JSON export, or None when it is not one: an array
    holding a trace, the API's page `{"data": [...], "meta": {...}}`, or one trace."""
    if isinstance(data, dict) and isinstance(data.get("data"), list) and "meta" in data:
        data = data["data"]
    if isinstance(data, list):
        return data if any(looks_like_trace(item) for item in data) else None
    return [data] if looks_like_trace(data) else None


def text_of(value: object, depth: int = 0) -> str | None:
    """The text an LLM output holds, or None (see the module docstring)."""
    if isinstance(value, str):
        return value
    if depth >= _NESTING:
        return None
    if isinstance(value, list):
        if value and all(isinstance(part, dict) and "type" in part for part in value):
            texts = [part["text"] for part in value if isinstance(part.get("text"), str)]
            return "".join(texts) if texts else None
        messages = [m for m in value if isinstance(m, dict) and m.get("role") == "assistant"]
        return text_of(messages[-1], depth + 1) if messages else None
    if not isinstance(value, dict):
        return None
    choices = value.get("choices")
    if isinstance(choices, list) and choices:
        return text_of(choices[0], depth + 1)
    for key in _TEXT_KEYS:
        if key in value and (found := text_of(value[key], depth + 1)) is not None:
            return found
    return None


def _document(value: object, strings: bool) -> tuple[str, dict[str, str]] | None:
    """(text, attributes) of one retrieved document, or None when it is not one."""
    if isinstance(value, str):
        return (value, {}) if strings else None
    if not isinstance(value, dict):
        return None
    node = value.get("node")
    if isinstance(node, dict):  # LlamaIndex NodeWithScore
        found = _document(node, strings)
        if found is not None and isinstance(value.get("score"), int | float):
            found[1].setdefault("score", str(value["score"]))
        return found
    text = next((value[k] for k in _DOC_TEXT_KEYS if isinstance(value.get(k), str)), None)
    if text is None:
        return None
    attributes: dict[str, str] = {}
    for key in ("metadata", "extra_info"):
        if isinstance(value.get(key), dict):
            attributes.update(short_labels(value[key]))
    attributes.update(short_labels({k: value[k] for k in _DOC_ATTRIBUTE_KEYS if k in value}))
    return text, attributes


def documents(value: object, strings: bool) -> list[tuple[str, dict[str, str]]] | None:
    """The documents an output holds (a list of them, or an object with such a list),
    or None; plain strings count as documents only when `strings`."""
    if isinstance(value, dict):
        for key in _DOC_LIST_KEYS:
            if isinstance(value.get(key), list):
                return documents(value[key], strings)
        return None
    if not isinstance(value, list) or not value:
        return None
    found = [_document(item, strings) for item in value]
    if any(doc is None for doc in found):
        return None
    return [doc for doc in found if doc is not None]


def _observations(trace: dict[str, Any]) -> list[dict[str, Any]]:
    raw = trace.get("observations")
    if raw is None:
        return []
    if not isinstance(raw, list):
        fail("observations", f"expected a list, got {json_type(raw)}.")
    full = [o for o in raw if isinstance(o, dict)]

    def when(observation: dict[str, Any]) -> str:
        stamp = observation.get("startTime") or observation.get("endTime") or ""
        return stamp if isinstance(stamp, str) else ""

    # in time order where they say when they ran; list order otherwise (a stable sort)
    return sorted(full, key=when)


def _kind(observation: dict[str, Any]) -> str:
    kind = observation.get("type")
    return kind.upper() if isinstance(kind, str) else ""


def _retrieved(observations: list[dict[str, Any]]) -> list[Fact]:
    facts: list[Fact] = []
    for observation in observations:
        kind = _kind(observation)
        if kind in ("GENERATION", "EVENT"):
            continue
        name = observation.get("name") if isinstance(observation.get("name"), str) else ""
        strings = kind == "RETRIEVER" or bool(_RETRIEVER_NAME.search(name or ""))
        for text, attributes in documents(observation.get("output"), strings) or ():
            if name:
                attributes = {"retriever": name[:MAX_LABEL_CHARS], **attributes}
            facts.append(Fact(text, attributes))
    return facts


def _given(trace: dict[str, Any]) -> list[Fact]:
    """Contexts handed to the app in its input, else noted in the trace's metadata."""
    for field in ("input", "metadata"):
        value = trace.get(field)
        if not isinstance(value, dict):
            continue
        for key in _INPUT_CONTEXT_KEYS:
            if key not in value:
                continue
            found = value[key]
            if isinstance(found, str):
                found = [found]
            docs = documents(found, strings=True)
            if docs:
                return [Fact(text, {"from": f"{field}.{key}", **attrs}) for text, attrs in docs]
    return []


def _answer(trace: dict[str, Any], observations: list[dict[str, Any]]) -> str:
    found = text_of(trace.get("output"))
    if found is None:
        generations = [o for o in observations if _kind(o) == "GENERATION"]
        outputs = (text_of(o.get("output")) for o in reversed(generations))
        found = next((text for text in outputs if text is not None), None)
    if found is None:
        if trace.get("output") is None and not observations:
            fail("output", "the trace has no output and no generation: nothing to check.")
        fail("output", "no answer text in the trace's output nor in a generation's output.")
    if not found.strip():
        fail("output", "the answer is empty; there is nothing to check.")
    return found


def _question(trace: dict[str, Any]) -> str | None:
    value = trace.get("input")
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        for key in _QUESTION_KEYS:
            if isinstance(value.get(key), str):
                return str(value[key])
    return None


def _labels(trace: dict[str, Any]) -> dict[str, str]:
    labels: dict[str, str] = {}
    metadata = trace.get("metadata")
    if isinstance(metadata, dict):
        labels.update(short_labels(metadata))
    labels.update(
        short_labels({k: trace.get(k) for k in ("name", "environment", "release", "version")})
    )
    tags = trace.get("tags")
    if isinstance(tags, list) and (words := [t for t in tags if isinstance(t, str)]):
        labels["tags"] = ", ".join(words)[:MAX_LABEL_CHARS]
    return labels


def parse_trace(data: object) -> AnswerRecord:
    """One trace as its answer and the documents it retrieved; raises
    ImportFormatError(field, message)."""
    if not isinstance(data, dict):
        fail("", f"a Langfuse trace is an object, got {json_type(data)}.")
    observations = _observations(data)
    answer = _answer(data, observations)
    facts = _retrieved(observations) or _given(data)
    if not facts:
        only_ids = any(isinstance(o, str) for o in data.get("observations") or ())
        hint = (
            " Its observations are ids only (the list endpoint): fetch each trace with "
            "GET /api/public/traces/{id} for their outputs."
            if only_ids
            else ""
        )
        fail(
            "observations",
            "no retrieved documents: expected a RETRIEVER observation (or a span whose "
            "output holds documents), or contexts in the trace's input or metadata." + hint,
        )
    trace_id = data.get("id")
    meta: dict[str, Any] = {"format": FORMAT}
    if isinstance(trace_id, str):
        meta["trace_id"] = trace_id
    if (question := _question(data)) is not None:
        meta["question"] = question
    for key, name in (("sessionId", "session_id"), ("htmlPath", "html_path")):
        if isinstance(data.get(key), str):
            meta[name] = data[key]
    return AnswerRecord(
        answer,
        tuple(facts),
        external_id=trace_id if isinstance(trace_id, str) else "",
        meta=meta,
        labels=_labels(data),
    )
