"""One JSONL line: parse it (at upload) and check it (in a worker).

Every shape the annotation import reads is accepted, through its own parser
(`common.importing.parse_line`): the shared grounding schema, check-grounding
requests (with or without a response; ours replaces it), Gemini responses and agent
outputs, whose sources stand in for facts. Each is re-checked by our engine with the
job's citation threshold, so one job's scores are comparable line to line.

`labels` are the line's metadata that the results page can group by: the dataset's
`source`, the string values of its `meta` object, a request's `userLabels`, and the
format the line came in.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from grounding_app import engine
from grounding_app.common.importing import ItemSource
from grounding_app.common.importing import parse_line as parse_item
from grounding_app.common.serialize import grounded_to_json
from grounding_app.engine import CheckRequest, CheckResponse
from grounding_app.formats.check_grounding import FormatError
from grounding_app.formats.from_check import grounded_from_check
from grounding_app.formats.grounded import GroundedAnswer
from grounding_app.formats.grounding_jsonl import DatasetError
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


def parse(raw: str, number: int) -> ParsedLine:
    """The line as an item to check; raises LineError naming the line and the problem."""
    try:
        item = parse_item(raw, number)
    except FormatError as exc:
        where = f"line {number}: {exc.field}" if exc.field else f"line {number}"
        raise LineError(f"{where}: {exc.message}") from exc
    except DatasetError as exc:
        message = str(exc)
        where = "" if message.startswith("line ") else f"line {number}: "
        raise LineError(where + message) from exc
    try:
        data = json.loads(raw)
    except ValueError:  # parse_item has read it already; a shape it accepts is JSON
        data = None
    return ParsedLine(item, _labels(data, item), _warning(item, number))


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
    score. With a source policy, the cited sources it excludes are counted."""
    request = request_for(item, citation_threshold)
    grounded = grounded_from_check(request, (run or engine.check)(request))
    if item.meta.get("facts_without_text") and any(
        s.verdict == "unsupported" for c in grounded.candidates for s in c.segments
    ):
        grounded = _unjudged(grounded)
    summary, score, count = summarize(grounded)
    unsupported = sum(s.verdict == "unsupported" for c in grounded.candidates for s in c.segments)
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
