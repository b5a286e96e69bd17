"""RAGAS-style evaluation rows: a question, the contexts retrieved for it, the answer.

RAGAS names the columns two ways, and both are read:

| meaning | older names | newer names |
|---|---|---|
| the question | `question` | `user_input` |
| the passages retrieved | `contexts` | `retrieved_contexts` |
| the answer to check | `answer` | `response` |
| a reference answer | `ground_truth`, `ground_truths` | `reference` |

The answer is checked against the contexts, one fact per passage. `contexts` is a list
of strings; in a CSV it is that list written out as text, in JSON
(`["a", "b"]`) or as Python prints it (`['a', "b's"]`), and a cell that is not a list at
all is one passage. The question, the reference and `reference_contexts` go into the
item's `meta`; an `id` column names the row; any other column with a plain value is
kept as a label the job's results can be grouped by.

A row in JSONL is an object; a CSV file (`read_csv`) is read whole, with what Excel
writes: a byte-order mark, CRLF line ends, `;` or tab as the separator, quoted cells
over several lines, header names in any case or with spaces, and empty trailing
columns. Every record keeps the number of the line it starts on.
"""

from __future__ import annotations

import ast
import csv
import io
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from grounding_app.engine import Fact
from grounding_app.formats._reader import ImportFormatError, fail, quote
from grounding_app.formats.check_grounding import json_type
from grounding_app.formats.records import AnswerRecord, short_labels

FORMAT = "ragas"

QUESTION = ("question", "user_input")
CONTEXTS = ("contexts", "retrieved_contexts")
ANSWER = ("answer", "response")
REFERENCE = ("ground_truth", "ground_truths", "reference")
REFERENCE_CONTEXTS = "reference_contexts"
ID = "id"

# Keys that say "this is a RAGAS row" (answer and response alone do not: other
# formats use those words too).
SIGNAL_KEYS = frozenset(QUESTION + CONTEXTS + REFERENCE + (REFERENCE_CONTEXTS,))
_READ = frozenset(QUESTION + CONTEXTS + ANSWER + REFERENCE + (REFERENCE_CONTEXTS, ID))
_SEPARATORS = (",", ";", "\t")
MAX_CELL_CHARS = 1024 * 1024  # as a batch line: one request of 200 long facts fits


def looks_like_row(data: object) -> bool:
    """Whether decoded JSON is a RAGAS row: an object with a question or contexts key."""
    return isinstance(data, dict) and bool(SIGNAL_KEYS & data.keys())


def _one_of(data: dict[str, Any], names: tuple[str, ...], required: bool) -> tuple[str, Any]:
    """(name, value) of the one spelling present; two spellings at once are refused."""
    present = [name for name in names if data.get(name) is not None]
    if len(present) > 1:
        fail(present[1], f"{quote(present[0])} and {quote(present[1])} are the same column.")
    if not present:
        if required:
            spelled = " or ".join(quote(name) for name in names)
            fail("", f"a RAGAS row needs {spelled}; this one has none.")
        return names[0], None
    return present[0], data[present[0]]


def _literal_list(path: str, text: str) -> list[Any]:
    """A list written as JSON or as Python prints it; refuses anything else."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        try:
            value = ast.literal_eval(text)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            fail(path, "starts with [ but is not a list of strings in JSON or Python syntax.")
    if not isinstance(value, list):
        fail(path, f"expected a list of strings, got {json_type(value)}.")
    return value


def passages(path: str, value: object) -> list[str]:
    """The passages of a contexts value: a list, a list written as text, or one text."""
    if isinstance(value, str):
        if not value.strip():
            return []
        value = _literal_list(path, value) if value.lstrip().startswith("[") else [value]
    if not isinstance(value, list):
        fail(path, f"expected a list of strings, got {json_type(value)}.")
    out = []
    for n, passage in enumerate(value):
        if not isinstance(passage, str):
            fail(f"{path}[{n}]", f"expected a string, got {json_type(passage)}.")
        out.append(passage)
    return out


def _text(path: str, value: object) -> str:
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return "\n".join(value)  # ground_truths: a list of reference answers
    if not isinstance(value, str):
        fail(path, f"expected a string, got {json_type(value)}.")
    return value


def parse_row(data: object) -> AnswerRecord:
    """One RAGAS row as an answer and its facts; raises ImportFormatError(field, message)."""
    if not isinstance(data, dict):
        fail("", f"a RAGAS row is an object, got {json_type(data)}.")
    answer_key, answer = _one_of(data, ANSWER, required=True)
    answer = _text(answer_key, answer)
    if not answer.strip():
        fail(answer_key, "the answer is empty; there is nothing to check.")
    contexts_key, contexts = _one_of(data, CONTEXTS, required=True)
    texts = passages(contexts_key, contexts)
    if not any(text.strip() for text in texts):
        fail(contexts_key, "no passage: the answer has nothing to be checked against.")
    # No attributes: the engine reads them as the fact's author, and a passage has none.
    facts = tuple(Fact(text, {}) for text in texts if text.strip())
    meta: dict[str, Any] = {"format": FORMAT}
    question_key, question = _one_of(data, QUESTION, required=False)
    if question is not None:
        meta["question"] = _text(question_key, question)
    reference_key, reference = _one_of(data, REFERENCE, required=False)
    if reference is not None:
        meta["reference"] = _text(reference_key, reference)
    if data.get(REFERENCE_CONTEXTS) is not None:
        meta["reference_contexts"] = passages(REFERENCE_CONTEXTS, data[REFERENCE_CONTEXTS])
    raw_id = data.get(ID)
    if raw_id is not None and not isinstance(raw_id, str | int):
        fail(ID, f"expected a string or an integer, got {json_type(raw_id)}.")
    extra = {key: value for key, value in data.items() if key not in _READ}
    return AnswerRecord(
        answer,
        facts,
        external_id="" if raw_id is None else str(raw_id),
        meta=meta,
        labels=short_labels(extra),
    )


# --- CSV files ---------------------------------------------------------------------


@dataclass(frozen=True)
class CsvRecord:
    """One data row of a CSV file: the line it starts on and its cells by column, or
    why it cannot be read (then `cells` holds what could be)."""

    number: int
    cells: dict[str, str]
    error: str = ""


def _header_names(line: str, separator: str) -> list[str]:
    return [name.strip().lower() for name in next(csv.reader([line], delimiter=separator))]


def _separator(header: str) -> str:
    """The separator that splits the header into the most RAGAS column names."""

    def known(separator: str) -> int:
        return len(_READ & set(_header_names(header, separator)))

    return max(_SEPARATORS, key=known)


def is_ragas_csv(text: str) -> bool:
    """Whether text is a CSV file whose header names a RAGAS answer and contexts column."""
    stripped = text.removeprefix("\ufeff").lstrip("\r\n")
    if not stripped or stripped[0] in "[{":
        return False
    header = stripped.splitlines()[0]
    names = set(_header_names(header, _separator(header)))
    return bool(names & set(ANSWER)) and bool(names & set(CONTEXTS))


def read_csv(text: str) -> Iterator[CsvRecord]:
    """The data rows of a RAGAS CSV file, numbered by the line each starts on (the
    header is line 1); blank rows are skipped, a row of the wrong width is an error."""
    text = text.removeprefix("\ufeff")
    lead = len(text) - len(text.lstrip("\r\n"))
    skipped = text[:lead].count("\n") or (1 if lead else 0)
    text = text[lead:]
    if not text:
        return
    separator = _separator(text.splitlines()[0])
    if csv.field_size_limit() < MAX_CELL_CHARS:
        csv.field_size_limit(MAX_CELL_CHARS)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=separator)
    try:
        header = [name.strip().lower() for name in next(reader)]
    except StopIteration:
        return
    while header and not header[-1]:
        header.pop()  # the empty columns Excel leaves after the last named one
    named = [name for name in header if name]
    duplicates = sorted({name for name in named if named.count(name) > 1})
    if duplicates:
        raise ImportFormatError("", f"the header names {quote(duplicates[0])} twice.")
    start = reader.line_num + 1
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:  # the reader goes on at the next line
            yield CsvRecord(start + skipped, {}, f"not a CSV row: {exc}.")
            start = reader.line_num + 1
            continue
        number, start = start + skipped, reader.line_num + 1
        if not any(cell.strip() for cell in cells):
            continue
        # a quoted cell over several lines keeps the file's CRLF; the text means LF
        row = {
            name: cell.replace("\r\n", "\n")
            for name, cell in zip(header, cells, strict=False)
            if name
        }
        if any(cell.strip() for cell in cells[len(header) :]):
            message = f"{len(cells)} cells, but the header names {len(header)} columns."
            yield CsvRecord(number, row, message)
            continue
        yield CsvRecord(number, row)
