"""Exports of the reviews a list filter finds: JSONL in the shared grounding schema, CSV.

One line or row per claim. JSONL follows `shared/data/grounding` (`id, source, facts,
claim, label, meta`), so `grounding_eval` and the trainer read it as is: `label` is the
reviewer's verdict where one is set, else the model's (`meta.label_from` says which);
claims that need no check, or carry no verdict, have no label and are left out. CSV
keeps every claim, with both verdicts; cells a spreadsheet would run as a formula get a
leading apostrophe (the JSONL is the faithful copy), and `claim_text_guard` says when the
claim's cell got one, so the text at `start`..`end` is the cell without it. Filtered to
reviews where the reviewer disagrees, both hold only the claims disagreed on.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db.models import QuerySet

from grounding_app.common.serialize import grounded_from_json
from grounding_app.engine import OffsetError, byte_prefix, char_index
from grounding_app.formats.csv_cells import csv_line, safe_cell
from grounding_app.formats.grounded import Candidate, Segment
from grounding_app.retention.expiry import site_days
from grounding_app.reviews.models import Review, ReviewerVerdict

BATCH = 200
LABELS = {"supported": 1, "unsupported": 0}
CSV_COLUMNS = (
    "review",
    "url",
    "created_at",
    "expires_at",
    "source_format",
    "candidate",
    "claim",
    "start",
    "end",
    "claim_text",
    "model_verdict",
    "model_score",
    "unsupported_words",
    "reviewer_verdict",
    "reviewer_note",
    "reviewer",
    "disagrees",
    "claim_text_guard",
)
GUARDED = "leading ' added: drop it for the text at start..end"


def _facts(review: Review, candidate: Candidate) -> list[dict[str, Any]]:
    """The review's facts, or for imports without facts the sources' texts."""
    if review.facts:
        return [{"text": f["factText"], "attributes": dict(f["attributes"])} for f in review.facts]
    facts = []
    for source in candidate.sources:
        attributes = {k: v for k, v in (("title", source.title), ("uri", source.uri)) if v}
        facts.append({"text": source.text, "attributes": attributes})
    return facts


@dataclass(frozen=True)
class _Row:
    review: Review
    expires_at: datetime
    candidate_index: int
    candidate: Candidate
    number: int  # 1-based claim number
    mine: ReviewerVerdict | None  # the reviewer's verdict, if any

    @property
    def segment(self) -> Segment:
        return self.candidate.segments[self.number - 1]


def _claims(reviews: QuerySet[Review], only_disagreements: bool = False) -> Iterator[_Row]:
    """Every claim of the reviews in list order, or only those a reviewer disagreed on."""
    ids = list(reviews.values_list("pk", flat=True))
    days = site_days()  # read once: a streamed response runs after the per-request memo
    for at in range(0, len(ids), BATCH):
        chunk = ids[at : at + BATCH]
        rows = Review.objects.filter(pk__in=chunk).select_related("created_by")
        by_id = {r.pk: r for r in rows}
        verdicts = {
            (v.review_id, v.candidate, v.claim): v
            for v in ReviewerVerdict.objects.filter(review_id__in=chunk).select_related("set_by")
        }
        for pk in chunk:
            review = by_id.get(pk)
            if review is None:  # expired or deleted since the list was read
                continue
            expires_at = review.created_at + timedelta(days=days)
            for c, candidate in enumerate(grounded_from_json(review.result).candidates):
                for n in range(1, len(candidate.segments) + 1):
                    mine = verdicts.get((pk, c, n))
                    if only_disagreements and not (mine and mine.disagrees):
                        continue
                    yield _Row(review, expires_at, c, candidate, n, mine)


def _context(text: str, start: int) -> str:
    try:
        return text[: char_index(text, start, byte_prefix(text))].rstrip()
    except OffsetError:
        return ""


def jsonl_lines(reviews: QuerySet[Review], only_disagreements: bool = False) -> Iterator[str]:
    """One shared-schema line per claim with a supported/unsupported verdict."""
    for row_of in _claims(reviews, only_disagreements):
        review, candidate, mine = row_of.review, row_of.candidate, row_of.mine
        c, n = row_of.candidate_index, row_of.number
        segment = row_of.segment
        reviewer = mine.verdict if mine else ""
        label_from = "reviewer" if reviewer in LABELS else "model"
        verdict = reviewer if reviewer in LABELS else (segment.verdict or "")
        if verdict not in LABELS:
            continue
        part = candidate.parts[segment.part] if segment.part < len(candidate.parts) else ""
        line = {
            "id": f"review:{review.public_id}#{c}.{n}",
            "source": f"review-{review.source_format}",
            "facts": _facts(review, candidate),
            "claim": segment.text,
            "label": LABELS[verdict],
            "meta": {
                "review": str(review.public_id),
                "candidate": c,
                "claim_index": n - 1,
                "start": segment.start,
                "end": segment.end,
                "context": _context(part, segment.start),
                "label_from": label_from,
                "model_verdict": segment.verdict,
                "model_score": segment.score,
                "unsupported_spans": [list(s) for s in segment.unsupported],
                "reviewer_verdict": reviewer,
                "reviewer_note": mine.note if mine else "",
                "created_at": review.created_at.isoformat(),
                "expires_at": row_of.expires_at.isoformat(),
            },
        }
        yield json.dumps(line, ensure_ascii=False) + "\n"


def csv_lines(reviews: QuerySet[Review], only_disagreements: bool = False) -> Iterator[str]:
    yield csv_line(CSV_COLUMNS)
    for row_of in _claims(reviews, only_disagreements):
        review, candidate, mine = row_of.review, row_of.candidate, row_of.mine
        c, n = row_of.candidate_index, row_of.number
        segment = row_of.segment
        raw = candidate.parts[segment.part].encode("utf-8") if candidate.parts else b""
        words = "; ".join(raw[a:b].decode("utf-8", "replace") for a, b in segment.unsupported)
        row = (
            review.public_id,
            review.get_absolute_url(),
            review.created_at.isoformat(),
            row_of.expires_at.isoformat(),
            review.source_format,
            c,
            n,
            segment.start,
            segment.end,
            segment.text,
            segment.verdict or "cited",
            "" if segment.score is None else f"{segment.score:.4f}",
            words,
            mine.verdict if mine else "",
            mine.note if mine else "",
            mine.set_by.get_username() if mine and mine.set_by else "",
            "yes" if mine and mine.disagrees else "",
            GUARDED if safe_cell(segment.text) != segment.text else "",
        )
        yield csv_line(row)
