"""Import: pasted or uploaded JSON in any of the three formats, as a grounded answer.

`detect_and_parse` decodes the text, decides from the shape which format it is, and
hands it to that format's reader. Every way the input can be wrong ends in one
exception, `ImportFormatError(field, message)`, whose `field` is a dotted path into
the JSON ("" for the text as a whole), so the page can say exactly what to fix.

Detection rules (field names in camelCase or snake_case), in order:

- an object with `candidates` or `promptFeedback`: `gemini`, a GenerateContentResponse;
- an object with `request`, and optionally `response`, nothing else: `check_grounding`,
  a request with its response (the response may be left out or null);
- an object with any CheckGroundingRequest field (`answerCandidate`, `facts`,
  `groundingSpec`, `groundingConfig`, `userLabels`): `check_grounding`, request only;
- an array: `agent`, a session output (its items must be objects).

An object matching two rows is refused as ambiguous; a CheckGroundingResponse alone is
refused because its offsets mean nothing without the answer; a single agent item not
in an array, an array of GenerateContentResponses (a streamed reply) and an empty array
are refused with a message saying what to paste instead. An answer (all parts of all
candidates) longer than `MAX_IMPORT_ANSWER_BYTES`, or with more than
`MAX_IMPORT_SEGMENTS` segments, is refused whole, never cut.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal, NoReturn

from grounding_app.engine import MAX_ANSWER_TOKENS, CheckRequest, find_lone_surrogate, utf8_len
from grounding_app.formats import _reader as r
from grounding_app.formats._reader import ImportFormatError
from grounding_app.formats.agent import parse_agent
from grounding_app.formats.check_grounding import FormatError, json_int, parse_check_request
from grounding_app.formats.check_grounding_response import grounded_from_check_json
from grounding_app.formats.gemini import parse_gemini
from grounding_app.formats.grounded import GroundedAnswer

__all__ = [
    "MAX_DEPTH",
    "MAX_IMPORT_ANSWER_BYTES",
    "MAX_IMPORT_BYTES",
    "MAX_IMPORT_SEGMENTS",
    "ImportFormatError",
    "ImportKind",
    "ImportResult",
    "decode_import",
    "detect_and_parse",
    "detect_kind",
]

MAX_IMPORT_BYTES = 16 * 1024 * 1024
MAX_DEPTH = 64
# The answer text one import may hold, every part of every candidate together: four
# times the check API's answer (MAX_ANSWER_BYTES), room for Gemini's longest replies
# (65,536 output tokens), and a page that renders in about a second. A 3.5 MB answer
# took a production worker past its timeout on every view.
MAX_IMPORT_ANSWER_BYTES = 256 * 1024
# Segments (claims, cited spans) one import may hold over all candidates: as many as the
# check API could return for its longest answer, one per token. Each is a row of the
# page; a 256 KiB answer could otherwise carry 100,000 one-byte ones.
MAX_IMPORT_SEGMENTS = MAX_ANSWER_TOKENS

ImportKind = Literal["check_grounding", "gemini", "agent"]

_GEMINI_KEYS = frozenset({"candidates", "promptFeedback"})
_PAIR_KEYS = frozenset({"request", "response"})
_REQUEST_KEYS = frozenset(
    {"answerCandidate", "facts", "groundingSpec", "groundingConfig", "userLabels"}
)
_RESPONSE_KEYS = frozenset({"supportScore", "citedChunks", "citedFacts", "claims"})
_AGENT_ITEM_KEYS = frozenset({"citations", "googleSearchSuggestions"})

_EXPECTED = (
    "expected a Gemini GenerateContentResponse (an object with candidates), a "
    "check-grounding request (an object with answerCandidate and facts, or "
    '{"request": ..., "response": ...}) or an agent session output (an array of items)'
)


@dataclass(frozen=True)
class ImportResult:
    """What an import yielded: `request` for check grounding, `grounded` when there was
    a response or grounding metadata to show (a bare request has none yet)."""

    kind: ImportKind
    grounded: GroundedAnswer | None
    request: CheckRequest | None


def _fail(message: str) -> NoReturn:
    raise ImportFormatError("", message)


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            _fail(f"the key {r.quote(key)} appears twice in one object.")
        result[key] = value
    return result


def _no_constant(name: str) -> NoReturn:
    _fail(f"{name} is not JSON; write numbers as digits.")


def _text(raw: str | bytes) -> str:
    if isinstance(raw, bytes | bytearray | memoryview):
        data = bytes(raw)
        if len(data) > MAX_IMPORT_BYTES:
            _fail(f"the input is {len(data):,} bytes; at most {MAX_IMPORT_BYTES:,} are allowed.")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            _fail(f"the input is not UTF-8: byte {exc.start} cannot be decoded.")
    elif isinstance(raw, str):
        if (where := find_lone_surrogate(raw)) is not None:
            _fail(f"the input holds a lone surrogate at character {where}; it is not text.")
        if len(raw) > MAX_IMPORT_BYTES or utf8_len(raw) > MAX_IMPORT_BYTES:
            _fail(f"the input is over {MAX_IMPORT_BYTES:,} bytes of UTF-8.")
        text = raw
    else:
        _fail(f"expected text or bytes, got {type(raw).__name__}.")
    return text.removeprefix("\ufeff")  # a byte-order mark some editors write


def _unstorable(text: str) -> str | None:
    """Why a string cannot be stored, or None: a lone surrogate has no UTF-8 form, and
    PostgreSQL's text and jsonb refuse U+0000 (which JSON can spell as an escape)."""
    if (where := find_lone_surrogate(text)) is not None:
        return f"a lone surrogate at character {where}"
    if (where := text.find("\x00")) >= 0:
        return f"a null character (U+0000) at character {where}"
    return None


def _check_tree(data: object) -> None:
    """Refuse nesting deeper than MAX_DEPTH and strings that cannot be stored.

    Walks without recursion, so nothing that reads the result meets deep nesting.
    `\\ud800` and `\\u0000` escapes decode to characters that nothing downstream could
    store (see `_unstorable`). A bad key is reported at its object's path, since the
    key itself must not reach a message that is stored.
    """
    stack: list[tuple[object, int, str]] = [(data, 0, "")]
    while stack:
        value, depth, path = stack.pop()
        if isinstance(value, str):
            if (why := _unstorable(value)) is not None:
                r.fail(path, f"the string holds {why}.")
            continue
        if not isinstance(value, dict | list):
            continue
        if depth >= MAX_DEPTH:
            r.fail(path, f"nested deeper than {MAX_DEPTH} levels.")
        if isinstance(value, list):
            stack.extend((item, depth + 1, f"{path}[{i}]") for i, item in enumerate(value))
            continue
        for key, item in value.items():
            if (why := _unstorable(key)) is not None:
                r.fail(path, f"a key holds {why}.")
            stack.append((item, depth + 1, r.join(path, key)))


def decode_import(raw: str | bytes) -> object:
    """Strict JSON from pasted text or uploaded bytes, size and depth bounded."""
    text = _text(raw)
    if not text.strip():
        _fail("the input is empty; paste a JSON object or array.")
    try:
        data = json.loads(
            text, object_pairs_hook=_no_duplicates, parse_constant=_no_constant, parse_int=json_int
        )
    except RecursionError:
        _fail(f"nested deeper than {MAX_DEPTH} levels.")
    except json.JSONDecodeError as exc:
        _fail(f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}.")
    except ValueError as exc:  # json_int's long number
        _fail(f"not valid JSON: {exc}.")
    _check_tree(data)
    return data


def _signals(data: dict[str, object]) -> list[str]:
    keys = {r.camel(key) for key in data}
    found = []
    if keys & _GEMINI_KEYS:
        found.append("gemini")
    if "request" in keys:
        found.append("pair")
    if keys & _REQUEST_KEYS:
        found.append("request")
    if keys & _RESPONSE_KEYS:
        found.append("response")
    if keys & _AGENT_ITEM_KEYS:
        found.append("agent_item")
    return found


_SIGNAL_NAMES = {
    "gemini": "a Gemini response (candidates)",
    "pair": 'a {"request", "response"} pair',
    "request": "a check-grounding request (answerCandidate, facts)",
    "response": "a check-grounding response (claims, citedChunks)",
    "agent_item": "an agent output item (citations, googleSearchSuggestions)",
}


def detect_kind(data: object) -> ImportKind:
    """Which format decoded JSON is in, by the rules in the module docstring."""
    if isinstance(data, list):
        if not data:
            _fail(f"the array is empty; {_EXPECTED}.")
        if all(isinstance(item, dict) and r.spelling(item, "candidates") for item in data):
            _fail(
                "this is an array of Gemini responses (a streamed reply); paste the "
                "response of a non-streaming generateContent call instead."
            )
        return "agent"
    if not isinstance(data, dict):
        _fail(f"got {r.json_type(data)}; {_EXPECTED}.")
    signals = _signals(data)
    if signals == ["gemini"]:
        return "gemini"
    if signals in (["pair"], ["request"]):
        return "check_grounding"
    if signals == ["response"]:
        _fail(
            "a check-grounding response alone cannot be shown: its offsets point into the "
            'answer in its request. Paste {"request": ..., "response": ...}.'
        )
    if signals == ["request", "response"]:
        _fail(
            'the object mixes request and response fields; paste {"request": ..., "response": ...}.'
        )
    if signals == ["agent_item"]:
        _fail("an agent session output is an array of items; wrap this object in [ ].")
    if signals:
        names = " and ".join(_SIGNAL_NAMES[signal] for signal in signals)
        _fail(f"ambiguous: the object looks like {names}; {_EXPECTED}.")
    _fail(f"unknown shape: {_EXPECTED}.")


def _bounded(grounded: GroundedAnswer) -> GroundedAnswer:
    """Refuse an answer over MAX_IMPORT_ANSWER_BYTES or MAX_IMPORT_SEGMENTS as a whole:
    cutting it would lose claims and offsets without a word."""
    size = sum(utf8_len(part) for candidate in grounded.candidates for part in candidate.parts)
    if size > MAX_IMPORT_ANSWER_BYTES:
        _fail(
            f"the answer is {size:,} bytes of text; an import may hold at most "
            f"{MAX_IMPORT_ANSWER_BYTES:,} bytes (256 KiB) over all its candidates and "
            "parts: import a longer answer in pieces."
        )
    segments = sum(len(candidate.segments) for candidate in grounded.candidates)
    if segments > MAX_IMPORT_SEGMENTS:
        _fail(
            f"the answer has {segments:,} cited segments; an import may hold at most "
            f"{MAX_IMPORT_SEGMENTS:,} cited segments over all its candidates: import it in "
            "pieces."
        )
    return grounded


def _request(data: object, path: str) -> CheckRequest:
    try:
        return parse_check_request(data)
    except FormatError as exc:
        field = f"{path}.{exc.field}" if path and exc.field else path or exc.field
        raise ImportFormatError(field, exc.message) from exc


def _check_grounding(data: dict[str, object]) -> ImportResult:
    if r.spelling(data, "request") is None:
        return ImportResult("check_grounding", grounded=None, request=_request(data, ""))
    for key in data:
        if key not in _PAIR_KEYS:
            r.fail(key, 'unknown key: a pair holds only "request" and "response".')
    if data.get("request") is None:
        r.fail("request", "missing: expected the CheckGroundingRequest object.")
    request = _request(r.obj("request", data["request"]), "request")
    response = data.get("response")
    grounded = (
        None
        if response is None
        else _bounded(grounded_from_check_json(request, response, "response"))
    )
    return ImportResult("check_grounding", grounded=grounded, request=request)


def detect_and_parse(raw: str | bytes) -> ImportResult:
    """Decode, detect and parse one import; raises only `ImportFormatError`."""
    data = decode_import(raw)
    kind = detect_kind(data)
    if kind == "gemini":
        return ImportResult("gemini", grounded=_bounded(parse_gemini(data)), request=None)
    if kind == "agent":
        return ImportResult("agent", grounded=_bounded(parse_agent(data)), request=None)
    assert isinstance(data, dict)  # detect_kind returns check_grounding only for objects
    return _check_grounding(data)
