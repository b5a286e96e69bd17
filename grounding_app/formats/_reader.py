"""Typed readers for imported JSON and the one check every imported span goes through.

Shared by the Gemini, agent and check-grounding-response importers so that all three
spell paths, accept numbers and report bad offsets the same way:

- a field may be spelled camelCase or snake_case (proto3 JSON accepts both), not both
  at once; `null` means unset; fields we do not read are ignored, because responses
  gain fields over time and the SDKs ignore unknown response fields too;
- an integer may be a JSON number without a fraction or a string of ASCII digits, a
  double a JSON number or a string in JSON number syntax, as proto3 JSON allows; `true`
  is never a number, and NaN / Infinity are refused (a score or offset cannot be either);
- a path names the field as it was sent, e.g. `candidates[0].grounding_metadata`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TypeVar

from grounding_app.formats.check_grounding import FormatError, JsonReader, json_type
from grounding_app.formats.check_grounding import join_path as join
from grounding_app.formats.grounded import Problem

# [0-9], not \d: \d and int() take every script's digits ("\u0661", "\uff10").
_INTEGER_STRING = re.compile(r"-?[0-9]{1,30}")
_UPPER = re.compile(r"[A-Z]")
_QUOTE_LIMIT = 80

T = TypeVar("T")


class ImportFormatError(FormatError):
    """Imported JSON that does not fit its format; `field` is a dotted path into it.

    A `FormatError`, so code that already handles request errors handles these too.
    """


def quote(text: str) -> str:
    """A string for a message: repr'd and cut short so one message stays one line."""
    if len(text) > _QUOTE_LIMIT:
        text = text[: _QUOTE_LIMIT - 1] + "…"
    return repr(text)


# The one JSON reader (check_grounding.JsonReader) for imports: ImportFormatError, long
# strings cut short in messages, numbers finite.
_READ = JsonReader(ImportFormatError, show=quote)
fail = _READ.fail
string = _READ.string
number = _READ.number
boolean = _READ.boolean
string_map = _READ.string_map


def snake(camel: str) -> str:
    return _UPPER.sub(lambda match: "_" + match.group().lower(), camel)


def camel(name: str) -> str:
    """`retrieved_context` -> `retrievedContext`; camelCase names come back unchanged."""
    head, *rest = name.split("_")
    return head + "".join(word[:1].upper() + word[1:] for word in rest)


def count(number: int, noun: str, plural: str = "") -> str:
    """ "1 part", "2 parts": counts in messages read as English."""
    return f"{number} {noun}" if number == 1 else f"{number} {plural or noun + 's'}"


def obj(path: str, value: object) -> dict[str, object]:
    if not isinstance(value, dict):
        fail(path, f"expected an object, got {json_type(value)}.")
    return value


def spelling(data: dict[str, object], camel: str) -> str | None:
    """The key under which `camel` is present (camelCase first, then snake_case), or None.

    Only looks: `get` is what reports a field sent under both spellings.
    """
    snake_name = snake(camel)
    if camel in data:
        return camel
    return snake_name if snake_name in data else None


def get(data: dict[str, object], path: str, camel: str) -> tuple[str, object]:
    """(path as sent, value) of a field; the value is None when absent or null."""
    snake_name = snake(camel)
    if camel in data and snake_name != camel and snake_name in data:
        fail(
            join(path, snake_name),
            f'"{camel}" and "{snake_name}" are the same field; send only one.',
        )
    name = camel if camel in data else snake_name if snake_name in data else camel
    return join(path, name), data.get(name)


def integer(path: str, value: object) -> int:
    if isinstance(value, str):
        if _INTEGER_STRING.fullmatch(value):
            return int(value)
        fail(path, f"expected an integer, got the string {quote(value)}.")
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        fail(path, f"expected an integer, got {json_type(value)}{_shown(value)}.")
    return value


def elements(path: str, value: object) -> Iterator[tuple[str, object]]:
    """(path, element) of each element of an array; null elements are refused."""
    if not isinstance(value, list):
        fail(path, f"expected an array, got {json_type(value)}.")
    for index, item in enumerate(value):
        item_path = f"{path}[{index}]"
        if item is None:
            fail(item_path, "null is not allowed as an element of an array.")
        yield item_path, item


def opt_string(data: dict[str, object], path: str, camel: str) -> str:
    field_path, value = get(data, path, camel)
    return "" if value is None else string(field_path, value)


def opt_bool(data: dict[str, object], path: str, camel: str, default: bool = False) -> bool:
    field_path, value = get(data, path, camel)
    return default if value is None else boolean(field_path, value)


def opt_number(data: dict[str, object], path: str, camel: str) -> float | None:
    field_path, value = get(data, path, camel)
    return None if value is None else number(field_path, value)


def opt_int(data: dict[str, object], path: str, camel: str) -> tuple[str, int | None]:
    field_path, value = get(data, path, camel)
    return field_path, None if value is None else integer(field_path, value)


def each(
    data: dict[str, object], path: str, camel: str, read: Callable[[str, object], T]
) -> tuple[T, ...]:
    """`read(path, element)` of each element of an optional array field."""
    field_path, value = get(data, path, camel)
    if value is None:
        return ()
    return tuple(read(item_path, item) for item_path, item in elements(field_path, value))


def indices(data: dict[str, object], path: str, camel: str) -> tuple[tuple[str, int], ...]:
    """(path, value) of each integer in an optional array of indices."""
    return each(data, path, camel, lambda item_path, item: (item_path, integer(item_path, item)))


def strings(data: dict[str, object], path: str, camel: str) -> tuple[str, ...]:
    return each(data, path, camel, string)


def _shown(value: object) -> str:
    return f" ({value!r})" if isinstance(value, int | float) and not isinstance(value, bool) else ""


# --- spans -------------------------------------------------------------------------


@dataclass(frozen=True)
class Span:
    """A segment as the wire gave it, with the path of each field for Problems."""

    part: int
    start: int
    end: int | None  # None: the format left it out
    text: str  # '' when the format does not say what the span holds
    part_path: str
    start_path: str
    end_path: str
    text_path: str


class PartTexts:
    """The parts of one candidate, each encoded once, for checking many spans.

    `engine.offsets` maps offsets to character indices through a per-character table;
    checking a span needs only the UTF-8 bytes (a boundary is any byte that is not a
    continuation byte), so one encoded copy per part keeps a 16 MiB answer cheap.
    """

    def __init__(self, parts: Sequence[str]) -> None:
        self._data = [part.encode("utf-8") for part in parts]

    def check(self, span: Span) -> Problem | None:
        """Why `span` cannot be placed, or None when it can: never shifted or clamped."""
        if not 0 <= span.part < len(self._data):
            return Problem(
                span.part_path,
                f"part {span.part} is out of range: the candidate has "
                f"{count(len(self._data), 'part')}.",
            )
        if span.end is None:
            return Problem(span.end_path, "missing: the end of the span is unknown.")
        data = self._data[span.part]
        size = len(data)
        for path, offset in ((span.start_path, span.start), (span.end_path, span.end)):
            if not 0 <= offset <= size:
                return Problem(
                    path,
                    f"{offset} is out of range: part {span.part} has {count(size, 'UTF-8 byte')}.",
                )
        if span.start > span.end:
            return Problem(span.start_path, f"{span.start} is after the end {span.end}.")
        for path, offset in ((span.start_path, span.start), (span.end_path, span.end)):
            if offset < size and data[offset] & 0xC0 == 0x80:
                return Problem(path, f"{offset} falls inside a multi-byte UTF-8 character.")
        found = data[span.start : span.end]
        if span.text and found != span.text.encode("utf-8"):
            return Problem(
                span.text_path,
                f"{quote(span.text)} does not match bytes [{span.start}, {span.end}) of "
                f"part {span.part}, which hold {quote(found.decode('utf-8'))}.",
            )
        return None


def not_placed(kind: str, text: str, problem: Problem) -> Problem:
    """The same Problem, saying which segment was left out (with its text, when known)."""
    what = f"{kind} {quote(text)}" if text else kind
    return Problem(problem.field, f"{what} is not placed: {problem.message}")
