"""One JSONL line: parse it (at upload) and check it (in a worker).

Every shape the annotation import reads is accepted, through its own parser
(`common.importing.parse_line`): the shared grounding schema, check-grounding
requests (with or without a response; ours replaces it), Gemini responses and agent
outputs, whose sources stand in for facts. So are a Langfuse trace
(`formats.langfuse`) and a RAGAS row (`formats.ragas`), told apart by their keys
(`detect`). Each is re-checked by our engine with the job's citation threshold, so one
job's scores are comparable line to line.

`labels` are the line's metadata that the results page can group by: the dataset's
`source`, the string values of its `meta` object, a request's `userLabels`, and the
format the line came in. `answered_at` is the answer's own time, where the line's object
gives one under `time` or `timestamp` (`common/answer_time.py`; a Langfuse trace's own
`timestamp`), from RETENTION_DAYS (at most 365) days ago to ANSWER_TIME_SKEW_SECONDS
ahead: trends count the line then, not when it was checked.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone

from grounding_app.active_verifier.checker import checker
from grounding_app.common.answer_time import answer_time
from grounding_app.common.importing import NOT_CHECKABLE, ItemSource, validated
from grounding_app.common.importing import parse_line as parse_item
from grounding_app.common.serialize import grounded_to_json
from grounding_app.engine import CheckRequest, CheckResponse, find_lone_surrogate
from grounding_app.formats import langfuse, ragas
from grounding_app.formats.check_grounding import FormatError
from grounding_app.formats.from_check import grounded_from_check
from grounding_app.formats.grounded import GroundedAnswer
from grounding_app.formats.grounding_jsonl import DatasetError
from grounding_app.formats.imports import decode_import
from grounding_app.formats.records import AnswerRecord
from grounding_app.policies.models import SourcePolicy
from grounding_app.policies.services import grounded_report
from grounding_app.reviews.services import summarize

Check = Callable[[CheckRequest], CheckResponse]

MAX_LABELS = 20
MAX_LABEL_CHARS = 200
MAX_PROBLEMS_SHOWN = 5


class LineError(ValueError):
    """Why a line cannot be checked, starting with its line number."""


@dataclass(frozen=True)
class ParsedLine:
    item: ItemSource
    labels: dict[str, str] = field(default_factory=dict)
    warning: str = ""  # what was wrong with a line that is checked all the same
    answered_at: datetime | None = None  # the answer's own time, when the line gives one


def oldest_answer_days() -> int:
    """How far back an answer's own time may lie: the retention period, at most a year
    (an older answer would count among days whose other lines are already purged)."""
    return min(settings.RETENTION_DAYS, 365)


def _timed(parsed: ParsedLine, data: object, number: int) -> ParsedLine:
    """The line with its answer's time, or a warning saying why the time it gave is not
    used (the line then counts when it came); the time's key is no label."""
    now = timezone.now()
    found = answer_time(
        data,
        oldest=now - timedelta(days=oldest_answer_days()),
        newest=now + timedelta(seconds=settings.ANSWER_TIME_SKEW_SECONDS),
    )
    if not found.key:
        return parsed
    labels = {k: v for k, v in parsed.labels.items() if k != found.key}
    if found.at is not None:
        return replace(parsed, labels=labels, answered_at=found.at)
    said = f"line {number} (counted when it came): {found.problem}."
    return replace(parsed, labels=labels, warning="; ".join(filter(None, (parsed.warning, said))))


def _warning(item: ItemSource, number: int) -> str:
    if not item.problems:
        return ""
    shown = list(item.problems[:MAX_PROBLEMS_SHOWN])
    if len(item.problems) > len(shown):
        shown.append(f"… and {len(item.problems) - len(shown)} more.")
    return f"line {number} (checked all the same): " + "; ".join(shown)


@dataclass(frozen=True)
class Outcome:
    result: dict[str, Any]
    support_score: float | None
    summary: str
    claim_count: int
    unsupported_count: int
    excluded_cited: int = 0
    judged_by: dict[str, dict[str, int]] = field(default_factory=dict)


def judged_by(grounded: GroundedAnswer) -> dict[str, dict[str, int]]:
    """Checked claims per judge and language ({"word_matching": {"he": 3}}; a claim of
    unknown language under ""), stored on the line so a job's page can count claims per
    judge without reading every result."""
    out: dict[str, dict[str, int]] = {}
    for candidate in grounded.candidates:
        for segment in candidate.segments:
            if segment.checked_by:
                by_language = out.setdefault(segment.checked_by, {})
                language = segment.language or ""
                by_language[language] = by_language.get(language, 0) + 1
    return out


def _labels(data: object, item: ItemSource) -> dict[str, str]:
    if isinstance(data, dict) and "claim" in data:  # the rule parse_item reads it by
        labels = {"format": "grounding", "source": item.source}
        extra = data.get("meta")
    else:
        labels = {"format": item.source}
        extra = data.get("userLabels", data.get("user_labels")) if isinstance(data, dict) else None
    if isinstance(extra, dict):
        for key, value in list(extra.items())[:MAX_LABELS]:
            if isinstance(value, str | int | float | bool) and key not in labels:
                labels[str(key)[:MAX_LABEL_CHARS]] = str(value)[:MAX_LABEL_CHARS]
    return labels


# Keys of the formats the annotation import reads: a line holding one is theirs.
_IMPORT_KEYS = frozenset(
    {
        "claim",
        "facts",
        "answerCandidate",
        "answer_candidate",
        "request",
        "candidates",
        "promptFeedback",
    }
)


def detect(data: object) -> str | None:
    """`langfuse` or `ragas` for a line in one of those shapes, None for the others.

    A line with a key of the formats the annotation import reads (an array, `claim`,
    `facts`, `answerCandidate`, `request`, `candidates`) is theirs. Otherwise a Langfuse
    trace has one of `langfuse.SIGNAL_KEYS` beside `input`, `output` or `observations`,
    and a RAGAS row one of `ragas.SIGNAL_KEYS` (question, contexts, reference); a line
    with both is ambiguous and fails, saying which keys pulled each way.
    """
    if not isinstance(data, dict) or _IMPORT_KEYS & data.keys():
        return None
    trace, row = langfuse.looks_like_trace(data), ragas.looks_like_row(data)
    if trace and row:
        found = sorted(langfuse.SIGNAL_KEYS & data.keys()), sorted(ragas.SIGNAL_KEYS & data.keys())
        raise FormatError(
            "",
            f"ambiguous: the object has Langfuse trace keys ({', '.join(found[0])}) and "
            f"RAGAS keys ({', '.join(found[1])}); send one shape per line.",
        )
    return langfuse.FORMAT if trace else ragas.FORMAT if row else None


def _record_item(kind: str, data: object) -> tuple[ItemSource, dict[str, str]]:
    record: AnswerRecord = (langfuse.parse_trace if kind == langfuse.FORMAT else ragas.parse_row)(
        data
    )
    item = validated(ItemSource(record.answer, record.facts, record.external_id, kind, record.meta))
    labels = {"format": kind}
    for key, value in list(record.labels.items())[:MAX_LABELS]:
        labels.setdefault(key[:MAX_LABEL_CHARS], value[:MAX_LABEL_CHARS])
    return item, labels


_FORMAT_NAMES = {langfuse.FORMAT: "Langfuse trace", ragas.FORMAT: "RAGAS row"}


def parse(raw: str, number: int) -> ParsedLine:
    """The line as an item to check; raises LineError naming the line and the problem
    (and, for a Langfuse trace or a RAGAS row, which it was read as)."""
    kind = None
    try:
        data = decode_import(raw)  # strict JSON, bounded depth, no lone surrogates
        kind = detect(data)
        if kind is not None:
            item, labels = _record_item(kind, data)
            return _timed(ParsedLine(item, labels), data, number)
        item = parse_item(raw, number)
    except FormatError as exc:
        where = f"line {number}" + (f" ({_FORMAT_NAMES[kind]})" if kind else "")
        where += f": {exc.field}" if exc.field else ""
        raise LineError(f"{where}: {exc.message}") from exc
    except DatasetError as exc:
        message = str(exc)
        where = "" if message.startswith("line ") else f"line {number}: "
        raise LineError(where + message) from exc
    return _timed(ParsedLine(item, _labels(data, item), _warning(item, number)), data, number)


# --- whole files -------------------------------------------------------------------


class FileError(ValueError):
    """A whole-file upload that cannot be read at all (a RAGAS CSV that is not UTF-8)."""


@dataclass(frozen=True)
class FileRecord:
    """One record of a whole-file upload, as the JSON line a batch line stores."""

    number: int  # the array element (from 1), or the CSV line the row starts on
    raw: str
    error: str = ""


def _as_line(value: object) -> str:
    """A record as one JSON line; a lone surrogate is kept escaped, so the line can be
    stored and then fails alone (`decode_import` names it)."""
    line = json.dumps(value, ensure_ascii=False)
    return json.dumps(value) if find_lone_surrogate(line) is not None else line


def _json_records(text: str) -> list[FileRecord] | None:
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):  # JSONL: more than one document
        return None
    if isinstance(data, dict) and isinstance(data.get("data"), list) and "meta" in data:
        data = data["data"]  # a page of Langfuse's list endpoint
    try:
        single = isinstance(data, dict) and detect(data) is not None
    except FormatError:
        single = False
    if single:
        return [FileRecord(1, _as_line(data))]
    if not isinstance(data, list) or not any(
        langfuse.looks_like_trace(item) or ragas.looks_like_row(item) for item in data
    ):
        return None  # one line of another format (an agent session output is an array)
    return [FileRecord(n, _as_line(item)) for n, item in enumerate(data, start=1)]


def _csv_records(data: bytes) -> list[FileRecord]:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FileError(
            f'the CSV file is not UTF-8 (byte {exc.start}); save it as "CSV UTF-8".'
        ) from exc
    try:
        rows = list(ragas.read_csv(text))
    except FormatError as exc:
        raise FileError(f"the CSV file cannot be read: {exc.message}") from exc
    return [
        FileRecord(
            row.number,
            _as_line(row.cells),
            f"line {row.number} (RAGAS row): {row.error}" if row.error else "",
        )
        for row in rows
    ]


_WIDE_BOMS = (b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")


def _wide_encoding(start: bytes) -> bool:
    """A UTF-16/32 byte-order mark, or ASCII text in UTF-16/32 without one (a NUL in
    its first two bytes, which no UTF-8 text file holds)."""
    return start.startswith(_WIDE_BOMS) or b"\x00" in start[:2]


def file_records(data: bytes) -> list[FileRecord] | None:
    """The records of an upload read as a whole, or None for JSONL (read line by line).

    Decided per file, before any line is read: text that starts with `[` or `{` and is
    one JSON document holding Langfuse traces or RAGAS rows (an array of them, the
    Langfuse API's `{"data": [...], "meta": ...}` page, or one pretty-printed object) is
    read element by element; text that starts otherwise and whose first line is a
    header naming a RAGAS answer and contexts column is a RAGAS CSV. Anything else is
    JSONL, where each line is detected by itself (`detect`). A UTF-16 or UTF-32 file
    (Excel's "Unicode text", or its CSV saved so) is refused whole: read as UTF-8 its
    every line would fail alone, or its NULs pass as text.
    """
    if _wide_encoding(data[:4]):
        raise FileError(
            'the file is UTF-16 or UTF-32, not UTF-8; save it as UTF-8 (for a CSV, "CSV UTF-8").'
        )
    head = data[:4096].removeprefix(b"\xef\xbb\xbf").lstrip()
    if not head:
        return None
    if head[:1] in (b"[", b"{"):
        try:
            text = data.decode("utf-8").removeprefix("\ufeff")
        except UnicodeDecodeError:
            return None
        return _json_records(text)
    first = head.split(b"\n", 1)[0].decode("utf-8", errors="replace")
    return _csv_records(data) if ragas.is_ragas_csv(first) else None


def record_count(data: bytes) -> int:
    """How many lines a job of this upload will have (0 when it cannot be read)."""
    try:
        records = file_records(data)
    except FileError:
        return 0
    if records is not None:
        return len(records)
    return sum(1 for line in data.split(b"\n") if line.strip())


def request_for(item: ItemSource, citation_threshold: float) -> CheckRequest:
    """The engine's request: only facts with text (a Gemini web chunk brings a title and
    a link, and judging a claim against a title would invent an "unsupported")."""
    without_text = set(item.meta.get("facts_without_text", ()))
    return CheckRequest(
        item.answer,
        tuple(fact for i, fact in enumerate(item.facts) if i not in without_text),
        citation_threshold=citation_threshold,
        enable_claim_level_score=True,
    )


def _unjudged(grounded: GroundedAnswer) -> GroundedAnswer:
    """Unsupported claims without a verdict: their support may be in a source we could
    not read (as the annotation import's `not_checkable`)."""
    candidates = tuple(
        replace(
            candidate,
            segments=tuple(
                replace(s, verdict=None, score=None) if s.verdict == "unsupported" else s
                for s in candidate.segments
            ),
            support_score=None,
        )
        for candidate in grounded.candidates
    )
    return replace(grounded, candidates=candidates)


def check(
    item: ItemSource,
    citation_threshold: float,
    run: Check | None = None,
    policy: SourcePolicy | None = None,
) -> Outcome:
    """Our engine's verdict on one item, in the shape a review stores. Where some source
    has no text, a claim the others do not support gets no verdict, and the answer no
    score: such claims are not counted, and an answer left with none judged is
    `not_checkable` (a Gemini answer whose sources all came without text was "0 of 2
    unsupported", read as 0 % in its job's rates). With a source policy, the cited
    sources it excludes are counted."""
    request = request_for(item, citation_threshold)
    grounded = grounded_from_check(request, (run or checker().respond)(request))
    unjudged = bool(item.meta.get("facts_without_text")) and any(
        s.verdict == "unsupported" for c in grounded.candidates for s in c.segments
    )
    if unjudged:
        grounded = _unjudged(grounded)
    summary, score, _ = summarize(grounded)
    segments = [s for c in grounded.candidates for s in c.segments]
    unsupported = sum(s.verdict == "unsupported" for s in segments)
    count = sum(s.verdict in ("supported", "unsupported") for s in segments)
    if unjudged and not count:
        summary = NOT_CHECKABLE
    excluded = 0
    if policy is not None:
        excluded = sum(1 for s in grounded_report(policy, grounded).excluded if s.cited_by)
    return Outcome(
        grounded_to_json(grounded),
        score,
        summary,
        count,
        unsupported,
        excluded,
        judged_by(grounded),
    )
