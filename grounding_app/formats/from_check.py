"""A check-grounding request and its response as a grounded answer, for display."""

from __future__ import annotations

from grounding_app.engine import LAYOUT_REASONS, CheckRequest, CheckResponse
from grounding_app.formats.grounded import Candidate, GroundedAnswer, Segment, Source, Verdict


def grounded_from_check(request: CheckRequest, response: CheckResponse) -> GroundedAnswer:
    """The response for display; the Markdown layout that is no claim (a table's header
    and rule rows, code) is left out, so the page shows it as rendered, not as a claim.
    Any other piece that is not checked (a heading, a greeting, a pointer) is shown as
    such, with why (`no_check_reason`)."""
    sources = tuple(
        Source(
            text=chunk.chunk_text,
            title=chunk.source_metadata.get("title", ""),
            uri=chunk.source_metadata.get("uri", "") or chunk.source_metadata.get("url", ""),
            domain=chunk.source_metadata.get("domain", ""),
            fact_index=chunk.source,
            metadata=dict(chunk.source_metadata),
        )
        for chunk in response.cited_chunks
    )
    segments = []
    for claim in response.claims:
        if claim.no_check_reason in LAYOUT_REASONS:
            continue
        verdict: Verdict
        if not claim.grounding_check_required:
            verdict = "no_check"
        elif claim.citation_indices:
            verdict = "supported"
        else:
            verdict = "unsupported"
        segments.append(
            Segment(
                part=0,
                start=claim.start,
                end=claim.end,
                text=claim.text,
                source_indices=claim.citation_indices,
                verdict=verdict,
                score=claim.score,
                unsupported=claim.unsupported,
                language=claim.language,
                checked_by=claim.checked_by,
                no_check_reason=claim.no_check_reason,
                llm_judge=claim.llm_judge,
                calibration=claim.scale,
                read_with=tuple(
                    (response.claims[j].start, response.claims[j].end)
                    for j in claim.context_claims
                    if 0 <= j < len(response.claims)
                ),
            )
        )
    candidate = Candidate(
        parts=(request.answer,),
        segments=tuple(segments),
        sources=sources,
        support_score=response.support_score,
    )
    return GroundedAnswer(format="check_grounding", candidates=(candidate,))
