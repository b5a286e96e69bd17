"""What the review views do, without HTTP: check, import, re-check, save, find, delete.

Views stay thin: they turn forms into calls here and results into templates.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import date
from typing import Any

from django.db import transaction
from django.db.models import Exists, OuterRef, QuerySet
from django.utils import timezone

from grounding_app.accounts.roles import may_change
from grounding_app.active_verifier.checker import checker
from grounding_app.active_verifier.services import judge_info
from grounding_app.common.evidence import with_evidence
from grounding_app.common.importing import from_grounded, grounded_meta
from grounding_app.common.serialize import grounded_from_json, grounded_to_json
from grounding_app.engine import (
    DEFAULT_CITATION_THRESHOLD,
    CheckRequest,
    ClaimToExplain,
    Fact,
)
from grounding_app.formats.check_grounding import check_limits
from grounding_app.formats.from_check import grounded_from_check
from grounding_app.formats.grounded import GroundedAnswer
from grounding_app.formats.imports import detect_and_parse
from grounding_app.policies.models import SourcePolicy
from grounding_app.policies.services import PolicyReport, grounded_report, review_policy
from grounding_app.rendering.answer import RenderedCandidate, render_answer
from grounding_app.reviews.folding import fold
from grounding_app.reviews.models import Review, ReviewerVerdict, ReviewerVerdictChange


def facts_to_json(facts: Iterable[Fact]) -> list[dict[str, Any]]:
    return [{"factText": f.text, "attributes": dict(f.attributes)} for f in facts]


def summarize(grounded: GroundedAnswer) -> tuple[str, float | None, int]:
    """(summary verdict, support score, claim count) for filtering the list. Only claims
    count: a sentence not checked (a greeting, a heading) would dilute the unsupported
    rate that batch trends and alerts compute from the count."""
    segments = [s for c in grounded.candidates for s in c.segments]
    supported = sum(s.verdict == "supported" for s in segments)
    unsupported = sum(s.verdict == "unsupported" for s in segments)
    if supported and not unsupported:
        summary = Review.Summary.SUPPORTED
    elif supported:
        summary = Review.Summary.PARTIAL
    elif unsupported:
        summary = Review.Summary.UNSUPPORTED
    else:
        summary = Review.Summary.NO_VERDICT
    score = grounded.candidates[0].support_score if grounded.candidates else None
    return summary, score, sum(s.verdict != "no_check" for s in segments)


def _search_text(grounded: GroundedAnswer, facts: list[dict[str, Any]]) -> str:
    """Folded (see `folding`), so that a folded query finds it with a plain LIKE."""
    pieces: list[str] = []
    for candidate in grounded.candidates:
        pieces.extend(candidate.parts)
        pieces.extend(candidate.web_search_queries)
        pieces.extend(s.title for s in candidate.sources if s.title)
    pieces.extend(f["factText"] for f in facts)
    return fold("\n".join(pieces))


def save_review(
    user: Any,
    grounded: GroundedAnswer,
    *,
    source_format: str,
    request: CheckRequest | None = None,
    raw_payload: str = "",
    engine_checked: bool = False,
    rechecked_from: Review | None = None,
    verifier: str = "",
) -> Review:
    facts = facts_to_json(request.facts) if request else []
    if request is not None:
        grounded = with_evidence(grounded, request.facts)
    summary, score, count = summarize(grounded)
    if request is not None:
        answer = request.answer
    else:
        answer = "\n".join(grounded.candidates[0].parts) if grounded.candidates else ""
    return Review.objects.create(
        answer=answer,
        facts=facts,
        citation_threshold=request.citation_threshold if request else None,
        source_format=source_format,
        engine_checked=engine_checked,
        verifier=verifier[:200],
        raw_payload=raw_payload,
        result=grounded_to_json(grounded),
        support_score=score,
        summary=summary,
        claim_count=count,
        search_text=_search_text(grounded, facts),
        rechecked_from=rechecked_from,
        created_by=user if getattr(user, "is_authenticated", False) else None,
    )


def _without_words(grounded: GroundedAnswer) -> GroundedAnswer:
    return replace(
        grounded,
        candidates=tuple(
            replace(c, segments=tuple(replace(s, unsupported=()) for s in c.segments))
            for c in grounded.candidates
        ),
    )


def checked_words(grounded: GroundedAnswer, request: CheckRequest) -> GroundedAnswer:
    """A check's result with its unsupported words exactly as the check returned them, so
    the review marks what the API marked. Without facts there is no evidence to lack
    words: the check lists every word, and the page says instead that no facts were given."""
    return grounded if request.facts else _without_words(grounded)


def with_unsupported_words(grounded: GroundedAnswer, request: CheckRequest) -> GroundedAnswer:
    """Mark, in each unsupported claim of an answer whose check named no words (a response
    from another tool), the words its best evidence does not back, as our check's
    lexical pass would."""
    facts = [f.text for f in request.facts]
    if not facts:
        return _without_words(grounded)
    candidates = []
    for candidate in grounded.candidates:
        targets = [i for i, s in enumerate(candidate.segments) if s.verdict == "unsupported"]
        claims = [
            ClaimToExplain(candidate.segments[i].text, candidate.segments[i].start) for i in targets
        ]
        spans = checker().engine().explain(claims, facts)
        segments = list(candidate.segments)
        for i, found in zip(targets, spans, strict=True):
            segments[i] = replace(segments[i], unsupported=found)
        candidates.append(replace(candidate, segments=tuple(segments)))
    return replace(grounded, candidates=tuple(candidates))


def check_and_save(
    user: Any,
    request: CheckRequest,
    *,
    source_format: str = Review.Format.MANUAL,
    raw_payload: str = "",
    rechecked_from: Review | None = None,
) -> Review:
    """Run our engine (with the verifier active now) on `request` and save the outcome as
    a new review that names the verifier."""
    checked = checker().check(request)
    verifier = checked.verifier or ""
    return save_review(
        user,
        checked_words(grounded_from_check(request, checked.response), request),
        source_format=source_format,
        request=request,
        raw_payload=raw_payload,
        engine_checked=True,
        rechecked_from=rechecked_from,
        verifier=verifier,
    )


def import_and_save(user: Any, raw: str | bytes) -> Review:
    """Parse an imported payload and save it; raises ImportFormatError when it is bad.

    A check-grounding request without a response is checked with our engine; any given
    response (and every Gemini or agent output) is rendered as it came.
    """
    result = detect_and_parse(raw)
    text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    if result.grounded is None:
        if result.request is None:  # the parser promises one or the other
            raise ValueError("the import gave neither a request nor a grounded answer")
        return check_and_save(
            user, result.request, source_format=Review.Format.CHECK_GROUNDING, raw_payload=text
        )
    grounded = result.grounded
    if result.request is not None and grounded.format == "check_grounding":
        named = any(s.unsupported for c in grounded.candidates for s in c.segments)
        # A response of our API names its words: they stay as they came. Another tool's
        # names none: our check's lexical pass marks them.
        grounded = (
            checked_words(grounded, result.request)
            if named
            else with_unsupported_words(grounded, result.request)
        )
    return save_review(
        user,
        grounded,
        source_format=result.grounded.format,
        request=result.request,
        raw_payload=text,
    )


def stored_request(review: Review) -> CheckRequest | None:
    """The check-grounding request behind a review, where it has one."""
    if review.source_format not in (Review.Format.MANUAL, Review.Format.CHECK_GROUNDING):
        return None
    return CheckRequest(
        answer=review.answer,
        facts=tuple(Fact(f["factText"], dict(f["attributes"])) for f in review.facts),
        citation_threshold=review.citation_threshold
        if review.citation_threshold is not None
        else DEFAULT_CITATION_THRESHOLD,
        enable_claim_level_score=True,
    )


def recheck(user: Any, review: Review) -> Review:
    request = stored_request(review)
    if request is None:
        raise ValueError("only reviews of a check-grounding request can be re-checked")
    return check_and_save(
        user,
        request,
        source_format=review.source_format,
        raw_payload=review.raw_payload,
        rechecked_from=review,
    )


def engine_request(review: Review) -> CheckRequest | None:
    """An imported answer (Gemini, agent) as a request to our engine: its answer, and its
    sources that have text as the facts (a web chunk brings only a title and a link, and
    judging a claim against a title would invent an "unsupported"). None for a review
    that has a request of its own (re-check that) or no readable source."""
    if stored_request(review) is not None:
        return None
    grounded = grounded_from_json(review.result)
    if not grounded.candidates:
        return None
    answer, facts = from_grounded(grounded)
    without_text = set(grounded_meta(grounded).get("facts_without_text", ()))
    readable = tuple(f for i, f in enumerate(facts) if i not in without_text)
    if not answer.strip() or not readable:
        return None
    return CheckRequest(answer, readable, enable_claim_level_score=True)


def engine_check(user: Any, review: Review) -> Review:
    """Our engine's verdicts on an imported answer, saved as a new review of it that keeps
    the facts it was checked on (so it can be re-checked later). FormatError when the
    check API would refuse the request (its limits bound the engine's work)."""
    request = engine_request(review)
    if request is None:
        raise ValueError("this review has no answer and sources our engine can check")
    check_limits(request)
    return check_and_save(
        user,
        request,
        source_format=Review.Format.MANUAL,
        raw_payload=review.raw_payload,
        rechecked_from=review,
    )


def rendered(review: Review, markdown: bool | None = None) -> tuple[RenderedCandidate, ...]:
    """`markdown`: None renders Markdown where the answer has some (see rendering)."""
    grounded = grounded_from_json(review.result)
    judged = (s.checked_by for c in grounded.candidates for s in c.segments)
    return render_answer(grounded, markdown, judge_info(review.verifier, judged))


def suggestion_html(review: Review, candidate: int, number: int) -> str | None:
    """The untrusted search-suggestions HTML, exactly as imported, or None."""
    candidates = review.result.get("candidates", [])
    if not 0 <= candidate < len(candidates):
        return None
    htmls = candidates[candidate].get("search_entry_html", [])
    return htmls[number] if 0 <= number < len(htmls) else None


def can_delete(user: Any, review: Review) -> bool:
    return may_change(user, review.created_by_id)


@dataclass(frozen=True)
class ReviewFilter:
    text: str = ""
    summary: str = ""
    source_format: str = ""
    min_score: float | None = None
    max_score: float | None = None
    date_from: date | None = None
    date_to: date | None = None
    disagrees: bool = False  # only reviews where a reviewer's verdict differs from the model's


def find_reviews(f: ReviewFilter) -> QuerySet[Review]:
    """Reviews matching every given filter, newest first."""
    reviews = Review.objects.select_related("created_by").defer(
        "result", "raw_payload", "search_text"
    )
    for word in fold(f.text).split():
        reviews = reviews.filter(search_text__contains=word)
    if f.summary:
        reviews = reviews.filter(summary=f.summary)
    if f.source_format:
        reviews = reviews.filter(source_format=f.source_format)
    if f.min_score is not None:
        reviews = reviews.filter(support_score__gte=f.min_score)
    if f.max_score is not None:
        reviews = reviews.filter(support_score__lte=f.max_score)
    if f.date_from is not None:
        reviews = reviews.filter(created_at__date__gte=f.date_from)
    if f.date_to is not None:
        reviews = reviews.filter(created_at__date__lte=f.date_to)
    if f.disagrees:
        reviews = reviews.filter(
            Exists(ReviewerVerdict.objects.filter(review=OuterRef("pk"), disagrees=True))
        )
    return reviews.order_by("-created_at", "-id")


class VerdictError(ValueError):
    """The claim named in a reviewer-verdict form is not on the review."""


def model_verdict(review: Review, candidate: int, claim: int) -> str:
    """The model's verdict of claim `claim` (1-based) of a candidate; raises VerdictError."""
    candidates = grounded_from_json(review.result).candidates
    if not 0 <= candidate < len(candidates) or not 1 <= claim <= len(
        candidates[candidate].segments
    ):
        raise VerdictError(f"review has no claim {claim} in candidate {candidate}")
    return candidates[candidate].segments[claim - 1].verdict or "cited"


def set_reviewer_verdict(
    user: Any, review: Review, candidate: int, claim: int, verdict: str, note: str
) -> ReviewerVerdict:
    """Save a reviewer's verdict and note for one claim, and log the change (who, when)."""
    model = model_verdict(review, candidate, claim)
    now = timezone.now()
    with transaction.atomic():
        current = ReviewerVerdict.objects.filter(
            review=review, candidate=candidate, claim=claim
        ).first()
        previous = current.verdict if current else ""
        if current is None:
            current = ReviewerVerdict(review=review, candidate=candidate, claim=claim)
        current.verdict = verdict
        current.note = note
        current.model_verdict = model
        current.disagrees = bool(verdict) and verdict != model
        current.set_by = user
        current.set_at = now
        current.save()
        ReviewerVerdictChange.objects.create(
            review=review,
            candidate=candidate,
            claim=claim,
            verdict=verdict,
            note=note,
            previous_verdict=previous,
            changed_by=user,
            changed_at=now,
        )
    return current


def reviewer_verdicts(review: Review) -> dict[tuple[int, int], ReviewerVerdict]:
    """{(candidate, claim number): verdict} of a review."""
    rows = ReviewerVerdict.objects.filter(review=review).select_related("set_by")
    return {(v.candidate, v.claim): v for v in rows}


def api_example(review: Review, origin: str) -> str:
    """A curl command that sends this review's request to our check API, for developers
    who want the same verdicts from code ('' when the review has no request)."""
    request = stored_request(review)
    if request is None:
        return ""
    body = json.dumps(
        {
            "answerCandidate": request.answer,
            "facts": [
                {"factText": f.text, "attributes": dict(f.attributes)} for f in request.facts
            ],
            "groundingSpec": {
                "citationThreshold": request.citation_threshold,
                "enableClaimLevelScore": True,
            },
        },
        ensure_ascii=False,
        indent=2,
    )
    url = f"{origin}/v1/projects/-/locations/global/groundingConfigs/default_grounding_config:check"
    # The here-document ends at a line "JSON": indented JSON has none (its strings escape
    # their line breaks), so no answer can end it early.
    return (
        f'curl -sS "{url}" \\\n  -H "x-goog-api-key: $API_KEY" \\\n'
        f"  -H \"Content-Type: application/json\" \\\n  --data-binary @- <<'JSON'\n{body}\nJSON"
    )


@dataclass(frozen=True)
class Panel:
    """The policy card of a review page: the picker and, with a policy, its report."""

    choices: tuple[SourcePolicy, ...]
    report: PolicyReport | None

    @property
    def has_policies(self) -> bool:
        return bool(self.choices)


def review_panel(review: Review) -> Panel:
    """The card for `review`, with the report when a policy is attached to it."""
    policy = review_policy(review)
    report = grounded_report(policy, grounded_from_json(review.result)) if policy else None
    return Panel(tuple(SourcePolicy.objects.only("pk", "name")), report)
