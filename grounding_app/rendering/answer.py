"""One candidate of a grounded answer -> escaped answer HTML plus views for the page.

Segments are UTF-8 byte spans into one part. They are mapped to characters through
`engine.offsets` only; a span that cannot be mapped (out of range, inside a character,
start after end, unknown part) is reported as a problem and left unmarked, never
shifted to a nearby character. Spans may overlap: the text is cut at every span
boundary, each piece is wrapped once, and a segment's markers go right after its end.

Everything inserted beside the original text (markers, attribution links, screen-reader
verdicts) carries the class `ann`, so the text outside `.ann` and `<sup>` is exactly the
answer.

Bidirectional text: each claim and its markers form one isolate, with the claim's own
direction (`bidi.py`; stated, since `dir="auto"` cannot see through nested isolates), so
a Hebrew claim beside an English one keeps its superscripts at its own end and claims
are never reordered across each other; inside it the claim's text is isolated again
(CSS, with the direction it inherits), so a stray override (U+202E) in the answer
cannot reverse our markers or the next claim. Each part states its direction too.
Untrusted titles inside markers are `<bdi>` for the same reason.
"""

from __future__ import annotations

import html
from collections import defaultdict
from dataclasses import dataclass
from urllib.parse import urlsplit

from grounding_app.engine.offsets import OffsetError, byte_prefix, char_index
from grounding_app.formats.grounded import Candidate, GroundedAnswer, Problem, Segment, Source
from grounding_app.rendering.bidi import dir_attribute, text_direction
from grounding_app.rendering.links import link_html, safe_href

VERDICT_LABELS = {
    "supported": "Supported",
    "unsupported": "Unsupported",
    "no_check": "No check needed",
    "cited": "Cited",  # a segment from a format that gives sources but no verdict
}


@dataclass(frozen=True)
class CitationView:
    number: int  # 1-based, as printed in the marker and the source list
    anchor: str  # id of the source entry


@dataclass(frozen=True)
class AttributionView:
    title: str
    uri: str
    href: str | None  # None: the URI is not a safe link and is shown as text


@dataclass(frozen=True)
class ClaimView:
    number: int
    anchor: str
    text: str
    verdict: str  # a key of VERDICT_LABELS
    verdict_label: str
    score: float | None
    score_text: str
    confidence_text: str
    citations: tuple[CitationView, ...]
    attributions: tuple[AttributionView, ...]
    placed: bool  # False when the offsets could not be mapped onto the text

    @property
    def source_anchors(self) -> str:
        return " ".join(c.anchor for c in self.citations)


@dataclass(frozen=True)
class SourceView:
    number: int
    anchor: str
    title: str
    domain: str
    uri: str
    href: str | None
    text: str
    metadata: tuple[tuple[str, str], ...]
    requires_attribution: bool
    cited_by: tuple[tuple[int, str], ...]  # (claim number, claim anchor)


@dataclass(frozen=True)
class QueryView:
    text: str
    uri: str
    href: str | None


@dataclass(frozen=True)
class RenderedCandidate:
    index: int
    parts_html: tuple[str, ...]  # escaped HTML, one per part, safe to mark as such
    parts_dir: tuple[str, ...]  # each part's base direction: "ltr", "rtl" or "auto"
    claims: tuple[ClaimView, ...]
    sources: tuple[SourceView, ...]
    problems: tuple[Problem, ...]
    support_score: float | None
    queries: tuple[QueryView, ...]
    widget_count: int
    verdict_counts: dict[str, int]

    @property
    def widget_numbers(self) -> range:
        return range(self.widget_count)

    @property
    def parts(self) -> list[tuple[str, str]]:
        """(HTML, direction) per part, for the template."""
        return list(zip(self.parts_html, self.parts_dir, strict=True))


def render_answer(grounded: GroundedAnswer) -> tuple[RenderedCandidate, ...]:
    return tuple(render_candidate(c, i) for i, c in enumerate(grounded.candidates))


def _verdict(segment: Segment) -> str:
    return segment.verdict or "cited"


def _source_title(source: Source, number: int, domain: str) -> str:
    if source.title:
        return source.title
    if source.fact_index is not None:
        return f"Fact {source.fact_index + 1}"
    return domain or f"Source {number}"


def _domain(source: Source, href: str | None) -> str:
    if source.domain:
        return source.domain
    return (urlsplit(href).hostname or "") if href else ""


def _claim_text(parts: tuple[str, ...], segment: Segment, span: tuple[int, int] | None) -> str:
    if span is None:
        return segment.text
    return parts[segment.part][span[0] : span[1]]


def _char_span(
    parts: tuple[str, ...], prefixes: dict[int, list[int]], segment: Segment
) -> tuple[int, int]:
    """Char offsets of a segment in its part; raises OffsetError where they do not exist."""
    if not 0 <= segment.part < len(parts):
        raise OffsetError(f"part {segment.part} does not exist: the answer has {len(parts)}")
    text = parts[segment.part]
    if segment.part not in prefixes:
        prefixes[segment.part] = byte_prefix(text)
    prefix = prefixes[segment.part]
    try:
        start = char_index(text, segment.start, prefix)
    except OffsetError as exc:
        raise OffsetError(f"start {exc}") from exc
    try:
        end = char_index(text, segment.end, prefix)
    except OffsetError as exc:
        raise OffsetError(f"end {exc}") from exc
    if start > end:
        raise OffsetError(f"start offset {segment.start} is after end offset {segment.end}")
    return start, end


def render_candidate(candidate: Candidate, index: int) -> RenderedCandidate:
    prefix = f"c{index}-"
    problems = list(candidate.problems)
    source_anchors = [f"{prefix}src-{n + 1}" for n in range(len(candidate.sources))]
    cited_by: dict[int, list[tuple[int, str]]] = defaultdict(list)
    prefixes: dict[int, list[int]] = {}
    claims: list[ClaimView] = []
    placed: dict[int, list[tuple[int, int, ClaimView]]] = defaultdict(list)

    for n, segment in enumerate(candidate.segments, start=1):
        anchor = f"{prefix}claim-{n}"
        try:
            span: tuple[int, int] | None = _char_span(candidate.parts, prefixes, segment)
        except OffsetError as exc:
            span = None
            problems.append(
                Problem(f"segment {n}", f"{exc}; it is listed but not marked in the text.")
            )
        citations: list[CitationView] = []
        attributions: list[AttributionView] = []
        for source_index in segment.source_indices:
            if not 0 <= source_index < len(candidate.sources):
                problems.append(
                    Problem(
                        f"segment {n}",
                        f"cites source {source_index}, but there are only "
                        f"{len(candidate.sources)} sources.",
                    )
                )
                continue
            citations.append(CitationView(source_index + 1, source_anchors[source_index]))
            cited_by[source_index].append((n, anchor))
            source = candidate.sources[source_index]
            if source.requires_attribution:
                href = safe_href(source.uri)
                title = _source_title(source, source_index + 1, _domain(source, href))
                attributions.append(AttributionView(title, source.uri, href))
        verdict = _verdict(segment)
        claim = ClaimView(
            number=n,
            anchor=anchor,
            text=_claim_text(candidate.parts, segment, span),
            verdict=verdict,
            verdict_label=VERDICT_LABELS[verdict],
            score=segment.score,
            score_text="" if segment.score is None else f"{segment.score:.2f}",
            confidence_text=", ".join(f"{c:.2f}" for c in segment.confidence),
            citations=tuple(citations),
            attributions=tuple(attributions),
            placed=span is not None,
        )
        claims.append(claim)
        if span is not None:
            placed[segment.part].append((span[0], span[1], claim))

    sources = []
    for i, source in enumerate(candidate.sources):
        href = safe_href(source.uri)
        domain = _domain(source, href)
        sources.append(
            SourceView(
                number=i + 1,
                anchor=source_anchors[i],
                title=_source_title(source, i + 1, domain),
                domain=domain,
                uri=source.uri,
                href=href,
                text=source.text,
                metadata=tuple(source.metadata.items()),
                requires_attribution=source.requires_attribution,
                cited_by=tuple(cited_by[i]),
            )
        )

    uris = candidate.search_suggestion_uris
    queries = tuple(
        QueryView(
            q, uris[i] if i < len(uris) else "", safe_href(uris[i]) if i < len(uris) else None
        )
        for i, q in enumerate(candidate.web_search_queries)
    )
    counts = {key: 0 for key in VERDICT_LABELS}
    for claim in claims:
        counts[claim.verdict] += 1
    return RenderedCandidate(
        index=index,
        parts_html=tuple(part_html(text, placed[p]) for p, text in enumerate(candidate.parts)),
        parts_dir=tuple(text_direction(text) or "auto" for text in candidate.parts),
        claims=tuple(claims),
        sources=tuple(sources),
        problems=tuple(problems),
        support_score=candidate.support_score,
        queries=queries,
        widget_count=len(candidate.search_entry_html),
        verdict_counts=counts,
    )


def _markers(claim: ClaimView) -> str:
    out = []
    if claim.citations:
        links = "".join(
            f'<a href="#{c.anchor}" class="cite-link">{c.number}</a>' for c in claim.citations
        )
        out.append(f'<sup class="ann cite" data-claim="{claim.anchor}">{links}</sup>')
    elif claim.verdict == "unsupported":
        out.append(f'<sup class="ann flag" data-claim="{claim.anchor}">unsupported</sup>')
    for attribution in claim.attributions:
        link = link_html(attribution.uri, attribution.title)
        out.append(f'<span class="ann attribution"><bdi>{link}</bdi></span>')
    spoken = claim.verdict_label + (f", score {claim.score_text}" if claim.score_text else "")
    out.append(f'<span class="ann sr-only">({html.escape(spoken)})</span>')
    return "".join(out)


def _open_span(active: list[tuple[int, int, ClaimView]]) -> str:
    innermost = max(active, key=lambda item: (item[0], item[2].number))[2]
    claims = " ".join(claim.anchor for _, _, claim in active)
    sources = " ".join(dict.fromkeys(c.anchor for _, _, claim in active for c in claim.citations))
    return (
        f'<span class="claim v-{innermost.verdict}" data-claims="{claims}" '
        f'data-sources="{sources}" tabindex="0">'
    )


def part_html(text: str, spans: list[tuple[int, int, ClaimView]]) -> str:
    """Escaped `text` with each span wrapped and its markers placed right after its end.

    `spans` are (start char, end char, claim), already validated against `text`.
    """
    if not spans:
        return html.escape(text)
    starts: dict[int, list[tuple[int, int, ClaimView]]] = defaultdict(list)
    ends: dict[int, list[tuple[int, int, ClaimView]]] = defaultdict(list)
    for span in spans:
        starts[span[0]].append(span)
        ends[span[1]].append(span)
    boundaries = sorted({0, len(text), *starts, *ends})
    active: list[tuple[int, int, ClaimView]] = []
    out: list[str] = []
    in_unit = False  # inside a claim's isolate (its text and its markers)
    for i, pos in enumerate(boundaries):
        ending = sorted(ends.get(pos, ()), key=lambda s: (s[0] == s[1], s[2].number))
        for span in ending:
            if span[0] != span[1]:
                active.remove(span)
            out.append(_markers(span[2]))
        if in_unit and not active:
            out.append("</span>")
            in_unit = False
        active.extend(s for s in starts.get(pos, ()) if s[0] != s[1])
        if active and not in_unit:
            first = min(active, key=lambda item: (item[0], item[2].number))
            out.append(f'<span class="claim-unit"{dir_attribute(text[first[0] : first[1]])}>')
            in_unit = True
        if i + 1 < len(boundaries):
            piece = html.escape(text[pos : boundaries[i + 1]])
            out.append(f"{_open_span(active)}{piece}</span>" if active else piece)
    return "".join(out)
