"""The grounded-answer shape <-> plain JSON, for storing a review's result.

A version number is stored with it so a later change of shape can migrate old rows
instead of misreading them. Version 2 added `unsupported` (word spans) to segments,
version 3 their `language` and `checked_by`; older rows read as having none. A segment's
`llm_judge` (why the LLM judge's verdict does not stand) and `no_check_reason` (why a
sentence was not checked) are optional within version 3:
a row without it reads as None, which is what it meant when it was stored. So is a
segment's `evidence` (a passage of the facts shown beside the claim) and its `read_with`
(the spans of the sentences it was read with), and its `calibration` (the scope's scale
its score is on): older rows have none.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from grounding_app.formats.grounded import (
    Candidate,
    FactPassage,
    GroundedAnswer,
    Problem,
    Segment,
    Source,
)

VERSION = 3
READABLE = frozenset({1, 2, 3})


def grounded_to_json(grounded: GroundedAnswer) -> dict[str, Any]:
    return {"version": VERSION, **asdict(grounded)}


def _segment(data: dict[str, Any]) -> Segment:
    evidence = data.get("evidence")
    return Segment(
        part=data["part"],
        start=data["start"],
        end=data["end"],
        text=data["text"],
        source_indices=tuple(data["source_indices"]),
        verdict=data["verdict"],
        score=data["score"],
        confidence=tuple(data["confidence"]),
        unsupported=tuple((int(a), int(b)) for a, b in data.get("unsupported", ())),
        language=data.get("language"),
        checked_by=data.get("checked_by"),
        no_check_reason=data.get("no_check_reason"),
        llm_judge=data.get("llm_judge"),
        evidence=FactPassage(**evidence) if evidence else None,
        read_with=tuple((int(a), int(b)) for a, b in data.get("read_with", ())),
        calibration=data.get("calibration"),
    )


def _candidate(data: dict[str, Any]) -> Candidate:
    return Candidate(
        parts=tuple(data["parts"]),
        segments=tuple(_segment(s) for s in data["segments"]),
        sources=tuple(Source(**s) for s in data["sources"]),
        support_score=data["support_score"],
        web_search_queries=tuple(data["web_search_queries"]),
        search_suggestion_uris=tuple(data["search_suggestion_uris"]),
        search_entry_html=tuple(data["search_entry_html"]),
        problems=tuple(Problem(**p) for p in data["problems"]),
    )


def grounded_from_json(data: dict[str, Any]) -> GroundedAnswer:
    if data.get("version") not in READABLE:
        raise ValueError(f"unknown stored result version {data.get('version')!r}")
    return GroundedAnswer(
        format=data["format"], candidates=tuple(_candidate(c) for c in data["candidates"])
    )
