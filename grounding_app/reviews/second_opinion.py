"""A second opinion on imported citations: our verifier reads each cited segment against
the text of the sources the segment cites, and the page shows both numbers side by side.

Gemini gives a confidence per cited chunk; an agent's citation gives none, so citing is
read as claiming support. Either side counts as "supported" at the citation threshold
(0.6), and the segment is flagged when the two sides fall on different sides of it.

Only text can be checked. Gemini web chunks carry a URI and a title, no text: a
segment citing only those is "not checkable: no source text", never a made-up 0.00.
When some of a segment's sources have text and some do not, it is checked against the
ones with text; a low score then is "not checkable" too, since the support may be in
the source we could not read.

Our engine is used through its public API (`engine.check` with a `CheckRequest` whose
facts are the source texts), one request per segment, each segment read after the
segment before it in the same part so that "It ..." keeps its subject; only the claims
inside the segment count, and the segment's score is the lowest of theirs (a segment is
supported only when all of it is). The scores, and nothing of the text, are cached per
review for an hour. The review page shows the cached opinion at once; otherwise it
loads it after the page (htmx), so a long answer never holds up the page or an import.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from django.core.cache import cache

from grounding_app.active_verifier.checker import checker, judge_name
from grounding_app.common.serialize import grounded_from_json
from grounding_app.engine import (
    DEFAULT_CITATION_THRESHOLD,
    MAX_FACT_CHARS,
    MAX_FACTS,
    CheckRequest,
    CheckResponse,
    Fact,
    OffsetError,
    slice_bytes,
    utf8_len,
)
from grounding_app.formats.grounded import Candidate, GroundedAnswer, Segment
from grounding_app.reviews.models import Review

logger = logging.getLogger(__name__)

CACHE_SECONDS = 3600
THRESHOLD = DEFAULT_CITATION_THRESHOLD
NO_TEXT = "not checkable: no source text"

Status = Literal["agree", "disagree", "not_checkable", "no_check"]
Check = Callable[[CheckRequest], CheckResponse]


@dataclass(frozen=True)
class SegmentOpinion:
    number: int  # 1-based, as in the claims table
    anchor: str  # the claims table row of the segment
    text: str
    theirs: float | None  # the format's best confidence; None where it gives none
    theirs_text: str  # "0.97", or "cited" where the format gives no score
    ours: float | None  # None where not checked
    status: Status
    note: str
    checked_sources: tuple[int, ...]  # 1-based source numbers read by our verifier

    @property
    def ours_text(self) -> str:
        return "—" if self.ours is None else f"{self.ours:.2f}"


@dataclass(frozen=True)
class CandidateOpinion:
    index: int
    who: str  # "Gemini" or "Agent"
    segments: tuple[SegmentOpinion, ...]

    def _count(self, status: Status) -> int:
        return sum(1 for s in self.segments if s.status == status)

    @property
    def agree(self) -> int:
        return self._count("agree")

    @property
    def disagree(self) -> int:
        return self._count("disagree")

    @property
    def not_checkable(self) -> int:
        return self._count("not_checkable")


def _segment_text(candidate: Candidate, segment: Segment) -> tuple[str, str] | None:
    """(context before the segment, the segment's text) from its own bytes, or None."""
    if not 0 <= segment.part < len(candidate.parts):
        return None
    part = candidate.parts[segment.part]
    try:
        text = slice_bytes(part, segment.start, segment.end)
        before = [
            s
            for s in candidate.segments
            if s.part == segment.part and s.end <= segment.start and s.start < s.end
        ]
        context = ""
        if before:
            previous = max(before, key=lambda s: s.end)
            context = slice_bytes(part, previous.start, segment.start)
    except OffsetError:
        return None
    return context, text


def _facts(candidate: Candidate, segment: Segment) -> tuple[list[Fact], list[int], int]:
    """The cited sources' texts as facts, their 1-based numbers, and how many had no text."""
    facts: list[Fact] = []
    numbers: list[int] = []
    missing = 0
    for index in dict.fromkeys(segment.source_indices):
        if not 0 <= index < len(candidate.sources):
            continue
        source = candidate.sources[index]
        if not source.text.strip():
            missing += 1
            continue
        if len(facts) < MAX_FACTS:
            attributes = {"title": source.title} if source.title else {}
            facts.append(Fact(source.text[:MAX_FACT_CHARS], attributes))
            numbers.append(index + 1)
    return facts, numbers, missing


def our_score(context: str, text: str, facts: list[Fact], check: Check) -> float | None:
    """The lowest score of the checked claims inside `text`; None when none needs a check."""
    answer = context + text
    offset = utf8_len(context)
    response = check(CheckRequest(answer, tuple(facts), THRESHOLD, enable_claim_level_score=True))
    scores = [
        claim.score
        for claim in response.claims
        if claim.end > offset and claim.grounding_check_required and claim.score is not None
    ]
    return min(scores) if scores else None


def _opinion(
    candidate: Candidate,
    c: int,
    n: int,
    segment: Segment,
    scores: dict[str, float | None],
    check: Check,
) -> SegmentOpinion:
    theirs = max(segment.confidence) if segment.confidence else None
    theirs_text = "cited" if theirs is None else f"{theirs:.2f}"
    anchor = f"c{c}-claim-{n}"
    spans = _segment_text(candidate, segment)
    facts, numbers, missing = _facts(candidate, segment)
    shown = spans[1] if spans else segment.text

    def opinion(ours: float | None, status: Status, note: str) -> SegmentOpinion:
        return SegmentOpinion(
            n, anchor, shown, theirs, theirs_text, ours, status, note, tuple(numbers)
        )

    if not segment.source_indices:
        return opinion(None, "not_checkable", "cites no source")
    if not facts:
        return opinion(None, "not_checkable", NO_TEXT)
    if spans is None:
        return opinion(None, "not_checkable", "its offsets do not fit the answer's text")
    key = f"{c}:{n}"
    if key not in scores:
        scores[key] = our_score(spans[0], spans[1], facts, check)
    ours = scores[key]
    if ours is None:
        return opinion(None, "no_check", "our engine finds nothing to check in it")
    ours_supported = ours >= THRESHOLD
    theirs_supported = theirs is None or theirs >= THRESHOLD
    if missing and not ours_supported:
        note = (
            f"{missing} of {missing + len(facts)} cited sources have no text; "
            "the support may be there"
        )
        return opinion(ours, "not_checkable", note)
    if ours_supported == theirs_supported:
        return opinion(ours, "agree", "")
    note = "ours finds support they do not" if ours_supported else "ours finds no support"
    return opinion(ours, "disagree", note)


def second_opinion(
    grounded: GroundedAnswer,
    check: Check | None = None,
    scores: dict[str, float | None] | None = None,
) -> tuple[CandidateOpinion, ...]:
    """Per candidate, each cited segment's agreement; `scores` holds known engine scores."""
    if grounded.format not in ("gemini", "agent"):
        return ()
    who = "Gemini" if grounded.format == "gemini" else "Agent"
    known = {} if scores is None else scores
    run = check or checker().respond
    return tuple(
        CandidateOpinion(
            c,
            who,
            tuple(
                _opinion(candidate, c, n, segment, known, run)
                for n, segment in enumerate(candidate.segments, start=1)
            ),
        )
        for c, candidate in enumerate(grounded.candidates)
        if candidate.segments
    )


def applies(review: Review) -> bool:
    return review.source_format in ("gemini", "agent")


def _key(review: Review) -> str:
    return f"second-opinion:v1:{review.public_id}:{judge_name(checker().directory())}"


def _cached_scores(review: Review) -> dict[str, float | None]:
    try:
        cached = cache.get(_key(review))
    except Exception:  # a cache that is down costs a re-check, never the page
        logger.exception("second-opinion cache read failed")
        return {}
    return dict(cached) if isinstance(cached, dict) else {}


class _NotCached(Exception):
    """Raised instead of running the engine when only cached scores may be used."""


def _refuse(request: CheckRequest) -> CheckResponse:
    raise _NotCached


def cached_for_review(review: Review) -> tuple[CandidateOpinion, ...] | None:
    """The second opinion if every score it needs is cached, else None (the page then
    fetches it with `for_review` after it has loaded, so rendering never waits for it)."""
    if not applies(review):
        return ()
    try:
        return second_opinion(
            grounded_from_json(review.result), _refuse, scores=_cached_scores(review)
        )
    except _NotCached:
        return None


def for_review(review: Review) -> tuple[CandidateOpinion, ...]:
    """The second opinion of a saved review, with its engine scores cached (numbers only)."""
    if not applies(review):
        return ()
    scores = _cached_scores(review)
    before = len(scores)
    opinions = second_opinion(grounded_from_json(review.result), scores=scores)
    if len(scores) != before:
        try:
            cache.set(_key(review), scores, CACHE_SECONDS)
        except Exception:
            logger.exception("second-opinion cache write failed")
    return opinions
