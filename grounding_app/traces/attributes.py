"""What a span says about a RAG answer, read from the attribute conventions in use.

Pure Python, no Django and no protobuf: a span is a `Span` (its attributes already plain
values), and `read_span` says whether it is an LLM call (its prompt and completion), a
retrieval (its documents) or neither, and which of its attribute keys no reader here
knows, so the source's page can list them instead of ignoring them silently.

Conventions read (each is what an instrumentation library writes today):

- GenAI semantic conventions as OpenLLMetry sets them: `gen_ai.prompt.N.role/content`,
  `gen_ai.completion.N.role/content`; the newer JSON attributes `gen_ai.input.messages`,
  `gen_ai.output.messages`, `gen_ai.system_instructions`; span events
  `gen_ai.{system,user,assistant,tool}.message` and `gen_ai.choice`, and the older
  `gen_ai.content.prompt` / `gen_ai.content.completion` events.
- OpenInference: `openinference.span.kind`, `llm.input_messages.N.message.role/content`,
  `llm.output_messages.N.message.content`, `input.value` / `output.value`,
  `retrieval.documents.N.document.content/id/score/metadata`.
- OpenLLMetry's decorated retriever tasks: `traceloop.entity.input/output`, where the
  output is a list of documents (strings, or objects with their text).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from grounding_app.common.numbers import plain_number

LLM = "llm"
RETRIEVER = "retriever"

# Where a span's role is written, and the values that name each role.
_OPENINFERENCE_KIND = "openinference.span.kind"
_GENAI_OPERATION = "gen_ai.operation.name"
_LLM_OPERATIONS = frozenset({"chat", "text_completion", "generate_content", "completion"})
_LLM_REQUEST_TYPE = "llm.request.type"  # OpenLLMetry: "chat" or "completion"

# Keys that say something we do not need (models, token counts, parameters, transport):
# known, so not reported as unknown. Matched on the key with indices written as N.
_IGNORED_PREFIXES = (
    "gen_ai.request.",
    "gen_ai.response.",
    "gen_ai.usage.",
    "gen_ai.system",
    "gen_ai.provider.",
    "gen_ai.operation.",
    "gen_ai.openai.",
    "gen_ai.agent.",
    "gen_ai.conversation.",
    "gen_ai.output.type",
    "gen_ai.tool.",
    "gen_ai.prompt.N.tool_call",
    "gen_ai.completion.N.tool_call",
    "gen_ai.completion.N.finish_reason",
    "llm.request.",
    "llm.usage.",
    "llm.model_name",
    "llm.provider",
    "llm.system",
    "llm.invocation_parameters",
    "llm.token_count.",
    "llm.is_streaming",
    "llm.headers",
    "llm.prompt_template.",
    "llm.tools.",
    "llm.function_call",
    "llm.input_messages.N.message.tool_call",
    "llm.output_messages.N.message.tool_call",
    "llm.input_messages.N.message.name",
    "llm.output_messages.N.message.name",
    "llm.output_messages.N.message.role",
    "llm.input_messages.N.message.contents.",
    "llm.output_messages.N.message.contents.",
    "input.mime_type",
    "output.mime_type",
    "retrieval.documents.N.document.metadata",
    "embedding.",
    "reranker.",
    "metadata",
    "tag.tags",
    "session.id",
    "user.id",
    "traceloop.",
    "server.",
    "http.",
    "url.",
    "net.",
    "network.",
    "error.",
    "exception.",
    "code.",
    "thread.",
    "db.",
    "vector_db.",
    "otel.",
    "telemetry.",
)
_INDEX = re.compile(r"\.\d+(?=\.|$)")


@dataclass(frozen=True)
class Event:
    name: str
    attributes: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Span:
    """One span with plain attribute values (str, int, float, bool or a list of them)."""

    trace_id: str  # lowercase hex, 32 characters
    span_id: str  # lowercase hex, 16 characters
    parent_id: str  # "" for a trace's root span
    name: str
    start_ns: int = 0
    end_ns: int = 0
    attributes: Mapping[str, Any] = field(default_factory=dict)
    events: tuple[Event, ...] = ()


@dataclass(frozen=True)
class Message:
    role: str
    content: str


@dataclass(frozen=True)
class Document:
    content: str
    id: str = ""
    score: float | None = None
    title: str = ""


@dataclass(frozen=True)
class SpanReading:
    """What one span contributes: its role, the LLM's messages or the retrieved
    documents, and the attribute keys nobody read (indices written as N)."""

    role: str | None  # LLM, RETRIEVER or None
    prompt: tuple[Message, ...] = ()
    completion: str = ""
    documents: tuple[Document, ...] = ()
    model: str = ""
    unknown_keys: frozenset[str] = frozenset()


def generic_key(key: str) -> str:
    """`gen_ai.prompt.3.content` -> `gen_ai.prompt.N.content`: one name per kind of key."""
    return _INDEX.sub(".N", key)


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(_text(v) for v in value if _text(v))
    return ""


def _json(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except ValueError:
        return None


def _indexed(attributes: Mapping[str, Any], prefix: str) -> dict[int, dict[str, Any]]:
    """`prefix.N.rest` keys as {N: {rest: value}}, for the flattened lists of both
    conventions (`gen_ai.prompt.0.content`, `retrieval.documents.2.document.id`)."""
    out: dict[int, dict[str, Any]] = {}
    dotted = prefix + "."
    for key, value in attributes.items():
        if not key.startswith(dotted):
            continue
        index, _, rest = key[len(dotted) :].partition(".")
        number = plain_number(index)  # not isdigit/int: "²" and 5,000 digits raised
        if number is not None and rest:
            out.setdefault(number, {})[rest] = value
    return dict(sorted(out.items()))


def _parts_text(parts: Any) -> str:
    """The text of a GenAI message's `parts` ([{"type": "text", "content": ...}])."""
    if isinstance(parts, str):
        return parts
    if not isinstance(parts, list):
        return ""
    texts = []
    for part in parts:
        if isinstance(part, str):
            texts.append(part)
        elif isinstance(part, Mapping) and part.get("type", "text") == "text":
            texts.append(_text(part.get("content", part.get("text", ""))))
    return "\n".join(t for t in texts if t)


def _message(data: Any, default_role: str = "") -> Message | None:
    """A chat message in any of the JSON shapes in use: {role, content}, {role, parts}."""
    if isinstance(data, str):
        return Message(default_role, data) if data else None
    if not isinstance(data, Mapping):
        return None
    nested = data.get("message")
    message: Mapping[str, Any] = nested if isinstance(nested, Mapping) else data
    role = str(message.get("role") or default_role)
    content = message.get("content")
    text = _parts_text(message["parts"]) if "parts" in message else _parts_text(content)
    return Message(role, text) if text else None


def _messages(value: Any, default_role: str = "") -> list[Message]:
    """Messages from a JSON list (or {"messages": [...]}); plain text is one message."""
    data = _json(value)
    if data is None and isinstance(value, str):
        return [Message(default_role, value)] if value.strip() else []
    if isinstance(data, Mapping) and isinstance(data.get("messages"), list):
        data = data["messages"]
    if not isinstance(data, list):
        data = [data]
    return [m for item in data if (m := _message(item, default_role)) is not None]


def _flat_messages(attributes: Mapping[str, Any], prefix: str, inner: str) -> list[Message]:
    """`prefix.N.{inner}role` / `prefix.N.{inner}content` as messages, in index order."""
    found = []
    for fields in _indexed(attributes, prefix).values():
        content = _text(fields.get(inner + "content"))
        if content:
            found.append(Message(str(fields.get(inner + "role") or ""), content))
    return found


def _completion_from_value(value: Any) -> str:
    """`output.value`: plain text, or a provider's JSON response (OpenAI's choices)."""
    data = _json(value) if isinstance(value, str) and value.lstrip()[:1] in "{[" else None
    if isinstance(data, Mapping):
        choices = data.get("choices")
        if isinstance(choices, list) and choices:
            first = choices[0]
            if isinstance(first, Mapping):
                found = _message(first.get("message", first)) or _message(
                    {"content": first.get("text")}
                )
                return found.content if found else ""
        for key in ("content", "text", "output", "answer"):
            if isinstance(data.get(key), str):
                return str(data[key])
        return ""
    return _text(value)


def _prompt_from_value(value: Any) -> list[Message]:
    """`input.value`: plain text (the user's prompt) or JSON holding messages."""
    if isinstance(value, str) and value.lstrip()[:1] in "{[":
        return _messages(value, "user")
    text = _text(value)
    return [Message("user", text)] if text else []


def _event_messages(events: Sequence[Event]) -> tuple[list[Message], list[str]]:
    """Prompt messages and completions written as span events."""
    prompt: list[Message] = []
    completions: list[str] = []
    for event in events:
        name, attrs = event.name, event.attributes
        if name.startswith("gen_ai.") and name.endswith(".message"):
            role = name.removeprefix("gen_ai.").removesuffix(".message")
            found = _message(
                {"role": attrs.get("role", role), "content": attrs.get("content", "")}
            ) or _message(_json(attrs.get("gen_ai.event.content")), role)
            if found is not None:
                prompt.append(found)
        elif name == "gen_ai.choice":
            found = _message(_json(attrs.get("message")), "assistant") or _message(
                {"role": "assistant", "content": attrs.get("content", "")}
            )
            if found is not None:
                completions.append(found.content)
        elif name == "gen_ai.content.prompt":
            prompt.extend(_messages(attrs.get("gen_ai.prompt"), "user"))
        elif name == "gen_ai.content.completion":
            completions.extend(m.content for m in _messages(attrs.get("gen_ai.completion")))
    return prompt, completions


def _document(data: Any) -> Document | None:
    """A retrieved document as frameworks return it: a string, or an object with its
    text under one of the usual names (LangChain's page_content, LlamaIndex's text)."""
    if isinstance(data, str):
        return Document(data) if data.strip() else None
    if not isinstance(data, Mapping):
        return None
    nested = data.get("document")
    inner: Mapping[str, Any] = nested if isinstance(nested, Mapping) else data
    for key in ("content", "page_content", "text", "document"):
        if isinstance(inner.get(key), str) and inner[key].strip():
            found = inner.get("metadata")
            metadata: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
            score = inner.get("score")
            return Document(
                inner[key],
                str(inner.get("id") or metadata.get("id") or metadata.get("source") or ""),
                float(score) if isinstance(score, int | float) else None,
                str(metadata.get("title") or ""),
            )
    return None


def _entity_documents(value: Any) -> list[Document]:
    """OpenLLMetry's `traceloop.entity.output` of a retriever task: a JSON list of
    documents (or an object holding one under "documents" / "results")."""
    data = _json(value)
    if isinstance(data, Mapping):
        data = data.get("documents", data.get("results"))
    if not isinstance(data, list) or not data:
        return []
    found = [d for item in data if (d := _document(item)) is not None]
    return found if len(found) == len(data) else []


def _openinference_documents(attributes: Mapping[str, Any]) -> list[Document]:
    found = []
    for fields in _indexed(attributes, "retrieval.documents").values():
        content = _text(fields.get("document.content"))
        if not content.strip():
            continue
        score = fields.get("document.score")
        metadata = _json(fields.get("document.metadata"))
        title = str(metadata.get("title") or "") if isinstance(metadata, Mapping) else ""
        found.append(
            Document(
                content,
                str(fields.get("document.id") or ""),
                float(score) if isinstance(score, int | float) else None,
                title,
            )
        )
    return found


# Keys (with indices written as N) that the readers above consume.
_READ_KEYS = frozenset(
    {
        _OPENINFERENCE_KIND,
        "gen_ai.prompt.N.role",
        "gen_ai.prompt.N.content",
        "gen_ai.completion.N.role",
        "gen_ai.completion.N.content",
        "gen_ai.input.messages",
        "gen_ai.output.messages",
        "gen_ai.system_instructions",
        "llm.input_messages.N.message.role",
        "llm.input_messages.N.message.content",
        "llm.output_messages.N.message.content",
        "input.value",
        "output.value",
        "retrieval.documents.N.document.content",
        "retrieval.documents.N.document.id",
        "retrieval.documents.N.document.score",
    }
)


def unknown_keys(attributes: Mapping[str, Any]) -> frozenset[str]:
    """The keys (indices as N) that neither a reader nor the list of ignored ones knows."""
    out = set()
    for key in attributes:
        generic = generic_key(key)
        if generic not in _READ_KEYS and not generic.startswith(_IGNORED_PREFIXES):
            out.add(generic)
    return frozenset(out)


def _role(span: Span, documents: list[Document], completion: str) -> str | None:
    attributes = span.attributes
    kind = str(attributes.get(_OPENINFERENCE_KIND, "")).upper()
    if kind == "RETRIEVER" or (not kind and documents and not completion):
        return RETRIEVER if documents else None
    if kind == "LLM":
        return LLM
    if kind:  # CHAIN, AGENT, TOOL, EMBEDDING...: OpenInference says it is not an LLM call
        return None
    if (
        str(attributes.get(_GENAI_OPERATION, "")) in _LLM_OPERATIONS
        or _LLM_REQUEST_TYPE in attributes
        or completion
    ):
        return LLM
    return None


def read_span(span: Span) -> SpanReading:
    """The span's role in a RAG answer and what it carries for it."""
    attributes = span.attributes
    kind = str(attributes.get(_OPENINFERENCE_KIND, "")).upper()
    documents = _openinference_documents(attributes)
    if not documents and "traceloop.entity.output" in attributes:
        documents = _entity_documents(attributes["traceloop.entity.output"])

    prompt = _flat_messages(attributes, "gen_ai.prompt", "")
    prompt = prompt or _flat_messages(attributes, "llm.input_messages", "message.")
    if not prompt and "gen_ai.input.messages" in attributes:
        prompt = _messages(attributes["gen_ai.input.messages"], "user")
        prompt = _messages(attributes.get("gen_ai.system_instructions"), "system") + prompt
    completions = [m.content for m in _flat_messages(attributes, "gen_ai.completion", "")]
    completions = completions or [
        m.content for m in _flat_messages(attributes, "llm.output_messages", "message.")
    ]
    if not completions and "gen_ai.output.messages" in attributes:
        completions = [m.content for m in _messages(attributes["gen_ai.output.messages"])]
    event_prompt, event_completions = _event_messages(span.events)
    prompt = prompt or event_prompt
    completions = completions or event_completions
    is_llm_kind = kind == "LLM" or (not kind and not documents)
    if not prompt and is_llm_kind and "input.value" in attributes:
        prompt = _prompt_from_value(attributes["input.value"])
    if not completions and is_llm_kind and "output.value" in attributes:
        completion_value = _completion_from_value(attributes["output.value"])
        completions = [completion_value] if completion_value else []
    completion = "\n".join(c for c in completions if c)

    role = _role(span, documents, completion)
    if role is None:
        return SpanReading(None)
    model = attributes.get("gen_ai.response.model") or attributes.get(
        "gen_ai.request.model", attributes.get("llm.model_name", "")
    )
    return SpanReading(
        role,
        tuple(prompt) if role == LLM else (),
        completion if role == LLM else "",
        tuple(documents) if role == RETRIEVER else (),
        str(model or ""),
        unknown_keys(attributes),
    )
