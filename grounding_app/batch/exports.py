"""A job's results as JSONL (faithful) and CSV (for spreadsheets), streamed line by line.

CSV cells that a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, tab, CR at the
start) get a leading apostrophe, so an answer like `=HYPERLINK(...)` stays text; the
JSONL file is the exact copy.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from grounding_app.batch.models import BatchJob, BatchLine
from grounding_app.formats.csv_cells import csv_line

CSV_COLUMNS = (
    "line",
    "id",
    "source",
    "state",
    "support_score",
    "summary",
    "claims",
    "unsupported_claims",
    "excluded_sources_cited",
    "answer",
    "error",
)
_FIELDS = (
    "number",
    "external_id",
    "source",
    "labels",
    "state",
    "error",
    "answer",
    "result",
    "verifier",
    "support_score",
    "summary",
    "claim_count",
    "unsupported_count",
    "excluded_cited",
)


def _rows(job: BatchJob) -> Iterator[BatchLine]:
    return BatchLine.objects.filter(job=job).only(*_FIELDS).order_by("number").iterator(500)


def claims_of(result: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The first candidate's claims: UTF-8 byte span, text, verdict, score, cited facts,
    and (as the API's `language`, `checkedBy`, `llmJudge` and `calibration`) the claim's
    language, judge, why the LLM judge's verdict does not stand and the scope's scale its
    score is on."""
    if not result or not result.get("candidates"):
        return []
    candidate = result["candidates"][0]
    sources = candidate.get("sources", [])
    claims = []
    for segment in candidate.get("segments", []):
        cited = sorted(
            {
                sources[n]["fact_index"]
                for n in segment.get("source_indices", [])
                if n < len(sources) and sources[n].get("fact_index") is not None
            }
        )
        claim = {
            "startPos": segment["start"],
            "endPos": segment["end"],
            "claimText": segment["text"],
            "verdict": segment.get("verdict") or "no_check",
            "score": segment.get("score"),
            "citedFacts": cited,
        }
        # What judged it, as the API names it; absent for lines checked before.
        if segment.get("language"):
            claim["language"] = segment["language"]
        if segment.get("checked_by"):
            claim["checkedBy"] = segment["checked_by"].upper()
        if segment.get("llm_judge"):
            claim["llmJudge"] = segment["llm_judge"]
        if segment.get("calibration"):
            claim["calibration"] = segment["calibration"]
        claims.append(claim)
    return claims


def jsonl_lines(job: BatchJob) -> Iterator[str]:
    for line in _rows(job):
        data: dict[str, Any] = {"line": line.number, "state": line.state}
        if line.external_id:
            data["id"] = line.external_id
        data.update(source=line.source, labels=line.labels)
        if line.state == BatchLine.State.DONE:
            data.update(
                answer=line.answer,
                supportScore=line.support_score,
                summary=line.summary,
                claims=claims_of(line.result),
                excludedSourcesCited=line.excluded_cited,
            )
            if line.verifier:  # name@sha256:<12 hex>, as the check API's responses name it
                data["verifier"] = line.verifier
        if line.error:
            data["error"] = line.error
        yield json.dumps(data, ensure_ascii=False) + "\n"


def csv_lines(job: BatchJob) -> Iterator[str]:
    yield csv_line(CSV_COLUMNS)
    for line in _rows(job):
        score = "" if line.support_score is None else f"{line.support_score:.6f}"
        yield csv_line(
            (
                line.number,
                line.external_id,
                line.source,
                line.state,
                score,
                line.summary,
                line.claim_count,
                line.unsupported_count,
                line.excluded_cited,
                line.answer,
                line.error,
            )
        )
