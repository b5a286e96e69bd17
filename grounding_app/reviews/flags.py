"""Flags where the reader looks: on the claim in the answer and on the cited number.

The reviewer's own verdict and the source policy's judgement of each cited source used
to show only in their own sections below the answer. Here they are written onto the
answer's HTML as it comes from `rendering`: a `data-mine` attribute on the claim's last
fragment (CSS draws the badge after the claim's text) and a class, a title and a
spoken word on each citation of a source from an excluded domain. Only markup that
`rendering` itself wrote is matched, by the ids it gave, so the answer's own text is
never rewritten.
"""

from __future__ import annotations

from collections.abc import Mapping
from html import escape

from grounding_app.policies.services import PolicyReport
from grounding_app.rendering.answer import RenderedCandidate
from grounding_app.reviews.models import ReviewerVerdict


def excluded_sources(report: PolicyReport | None, candidate: int) -> dict[str, str]:
    """{source anchor: the excluded domain it matched} for one candidate."""
    if report is None:
        return {}
    return {
        s.anchor: s.verdict.matched or s.verdict.domain or ""
        for s in report.excluded
        if s.candidate == candidate
    }


def _mark_last(html: str, anchor: str, attribute: str) -> str:
    """Add `attribute` to the last fragment of the claim `anchor` (a claim split by
    bold or a link is several spans with the same data-claims)."""
    needle = f'data-claims="{anchor}"'
    at = html.rfind(needle)
    if at == -1:
        return html
    end = at + len(needle)
    return f"{html[:end]} {attribute}{html[end:]}"


def flagged_parts(
    candidate: RenderedCandidate,
    mine: Mapping[tuple[int, int], ReviewerVerdict],
    excluded: Mapping[str, str],
) -> tuple[str, ...]:
    """The candidate's answer parts with the reviewer's verdicts and policy flags."""
    parts = []
    for html in candidate.parts_html:
        for claim in candidate.claims:
            verdict = mine.get((candidate.index, claim.number))
            if verdict is not None and verdict.verdict:
                html = _mark_last(html, claim.anchor, f'data-mine="{escape(verdict.verdict)}"')
            for citation in claim.citations:
                if citation.anchor not in excluded:
                    continue
                plain = f'<a href="#{citation.anchor}" class="cite-link">{citation.number}</a>'
                domain = escape(excluded[citation.anchor])
                html = html.replace(
                    plain,
                    f'<a href="#{citation.anchor}" class="cite-link is-excluded" '
                    f'title="From an excluded domain: {domain}">{citation.number}'
                    '<span class="sr-only"> (excluded domain)</span></a>',
                )
        parts.append(html)
    return tuple(parts)
