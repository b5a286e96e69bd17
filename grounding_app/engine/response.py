"""The response of a check, written from its claims' records: each claim's citations (the
passages of its verdict, when it reaches the request's citation threshold, each cited
chunk listed once), score, language and what judged it; the words an unsupported claim's
evidence lacks; the support score, the mean of the checked claims' scores."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from grounding_app.engine.claim_work import ClaimWork
from grounding_app.engine.escalation import Outcome
from grounding_app.engine.types import CheckRequest, CheckResponse, CitedChunk, Claim
from grounding_app.engine.unsupported import ClaimToExplain

Spans = tuple[tuple[int, int], ...]
# Per claim, the byte spans of the words its evidence lacks (`GroundingEngine.explain`).
Explain = Callable[[Sequence[ClaimToExplain], Sequence[str]], list[Spans]]


def respond(request: CheckRequest, works: Sequence[ClaimWork], explain: Explain) -> CheckResponse:
    """The response to `request` from its claims' records."""
    chunks: list[CitedChunk] = []
    chunk_index: dict[tuple[int, int, int], int] = {}
    claims = [_claim(request, work, chunks, chunk_index) for work in works]
    claims = _explained(request, claims, _ruled_words(claims, works), explain)
    checked = [work.verdict.score for work in works if work.required]
    support = float(np.mean(checked)) if checked else None
    return CheckResponse(claims=tuple(claims), cited_chunks=tuple(chunks), support_score=support)


def _claim(
    request: CheckRequest,
    work: ClaimWork,
    chunks: list[CitedChunk],
    chunk_index: dict[tuple[int, int, int], int],
) -> Claim:
    """One claim of the response; the passages it cites are added to `chunks` once each
    (`chunk_index`: where each passage already stands)."""
    sentence, verdict = work.sentence, work.verdict
    citations: list[int] = []
    if work.required and verdict.score >= request.citation_threshold:
        for passage in verdict.cited:
            key = (passage.fact, passage.start, passage.end)
            if key not in chunk_index:
                chunk_index[key] = len(chunks)
                chunks.append(
                    CitedChunk(
                        chunk_text=passage.text,
                        source=passage.fact,
                        source_metadata=dict(request.facts[passage.fact].attributes),
                    )
                )
            citations.append(chunk_index[key])
    return Claim(
        start=sentence.start,
        end=sentence.end,
        text=sentence.text,
        grounding_check_required=work.required,
        citation_indices=tuple(dict.fromkeys(citations)),
        score=verdict.score if work.required and request.enable_claim_level_score else None,
        language=work.language if work.required else None,
        checked_by=work.checked_by,
        no_check_reason=work.no_check_reason,
        llm_judge=_fell_back(work.outcome),
        context_claims=work.context.claims if work.context_used else (),
        scale=work.scale if work.required else None,
    )


def _explained(
    request: CheckRequest, claims: list[Claim], ruled: dict[int, Spans], explain: Explain
) -> list[Claim]:
    """The claims, each unsupported one with the spans of the words its evidence lacks:
    those an escalation's ruling named (`ruled`, by claim), else the lexical pass's."""
    explained = [
        c
        for k, c in enumerate(claims)
        if c.grounding_check_required and not c.citation_indices and k not in ruled
    ]
    spans = explain(
        [ClaimToExplain(c.text, c.start) for c in explained], [f.text for f in request.facts]
    )
    by_start = {c.start: found for c, found in zip(explained, spans, strict=True)}
    by_start.update({claims[k].start: found for k, found in ruled.items()})
    return [replace(c, unsupported=by_start.get(c.start, ())) for c in claims]


def _fell_back(outcome: Outcome | None) -> str | None:
    if outcome is None or outcome.fell_back is None:
        return None
    return f"fell back: {outcome.fell_back}"


def _find_word(word: str, text: str) -> tuple[int, int] | None:
    """Where the judge's word stands in the claim, as written or in another case (where
    lower-casing keeps the text's length, so indices still point into it)."""
    if not word:
        return None
    at = text.find(word)
    if at < 0 and len(text.lower()) == len(text) and len(word.lower()) == len(word):
        at = text.lower().find(word.lower())
    return (at, at + len(word)) if at >= 0 else None


def _ruled_words(claims: Sequence[Claim], works: Sequence[ClaimWork]) -> dict[int, Spans]:
    """Per claim ruled unsupported, the byte spans in the answer of the words the ruling
    named that the claim holds (claims naming none keep the lexical pass's)."""
    found: dict[int, Spans] = {}
    for i, (claim, work) in enumerate(zip(claims, works, strict=True)):
        ruling = None if work.outcome is None else work.outcome.ruling
        if ruling is None or ruling.supported:
            continue
        spans = set()
        for word in ruling.unsupported_words:
            hit = _find_word(word.strip(), claim.text)
            if hit is not None:
                start = claim.start + len(claim.text[: hit[0]].encode())
                spans.add((start, start + len(claim.text[hit[0] : hit[1]].encode())))
        if spans:
            found[i] = tuple(sorted(spans))
    return found
