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

A claim that word matching judged (its language is one the engine's model does not
read) gets a visible mark after its score, the full sentence in its title and in the
spoken verdict, and the candidate one summary line (`languages.py` words them). A claim
the LLM judge decided, or where it fell back to the local verdict, gets its own mark
and the candidate its own line, the same way (`llm_notes.py` words them).

Markdown: `render_answer(..., markdown=True)` renders each part as CommonMark through
`markdown.py` (the one sanitising module); claim starts and ends and unsupported words
become sentinel points there and are turned into the same spans and superscripts here.
`markdown=None` renders a part as Markdown only when it has Markdown in it (what the
review page does), so plain answers keep the byte-exact view; the default is plain.
"""

from __future__ import annotations

import html
import re
from bisect import bisect_right
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from grounding_app.engine import (
    LLM_JUDGE,
    NUMBER_MARK,
    WORD_MATCHING,
    OffsetError,
    byte_prefix,
    char_index,
    claim_marks,
    language_name,
    needs_grounding_check,
    slice_bytes,
    split_claims,
)
from grounding_app.formats.grounded import (
    Candidate,
    FactPassage,
    GroundedAnswer,
    Problem,
    Segment,
    Source,
)
from grounding_app.rendering import llm_notes
from grounding_app.rendering.bidi import base_direction, dir_attribute
from grounding_app.rendering.languages import JudgeInfo, mark_text, summary
from grounding_app.rendering.links import link_html, safe_href
from grounding_app.rendering.markdown import (
    Token,
    block_tokens,
    can_place,
    looks_like_markdown,
    pieces,
    render_markdown,
)

VERDICT_LABELS = {
    "supported": "Supported",
    "unsupported": "Unsupported",
    "no_check": "No check needed",
    "cited": "Cited",  # a segment from a format that gives sources but no verdict
    # A sentence of a Gemini or agent answer that no grounding support or citation covers.
    "uncited": "No citation",
}
# Why a sentence was not checked (engine.NO_CHECK_REASONS), said in place of "No check
# needed"; the Markdown layout (a table's header and rule, code) is drawn as rendered.
NO_CHECK_LABELS = {
    "table_header": "Table header — not checked",
    "table_rule": "Table rule — not checked",
    "code": "Code — not checked",
    "heading": "Heading — not checked",
    "lead_in": "Introduces what follows — not checked",
    "instruction": "Instruction to the reader — not checked",
    "pointer": "Pointer to another source — not checked",
    "question": "Question — not checked",
    "greeting": "Greeting — not checked",
    "sign_off": "Sign-off — not checked",
    "no_claim": "States nothing to check — not checked",
}
# The formats whose segments are the answer's cited stretches, not claims that tile it:
# the sentences between them are listed too, as claims without a citation.
CITING_FORMATS = frozenset({"gemini", "agent"})


# A claim with neither a verdict nor a citation: our engine left it unjudged because its
# support may be in a source that came without text (a Gemini web chunk). "Cited" would
# name a citation it does not have.
UNJUDGED = "Not checkable: no source text"

HIGH_SCORE = 0.75
LOW_SCORE = 0.4


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
class EvidenceView:
    """One passage on a claim's evidence card: a cited source's passage, or a passage of
    the facts beside them (`FactPassage`), with the claim's numbers and names marked."""

    label: str  # "Source 2", "Fact 3"
    anchor: str  # the source card's id, "" for a passage of the facts
    title: str
    html: str  # escaped passage, marks inserted; "" when the source came without text
    note: str = ""  # why a passage of the facts is shown


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
    text_html: str = ""  # escaped claim text, unsupported words wrapped
    unsupported_words: tuple[str, ...] = ()
    language: str | None = None  # of a checked claim, ISO 639-1
    checked_by: str | None = None  # engine.CHECKED_BY
    word_matching: str = ""  # the sentence saying a claim was word-matched (languages.py)
    # Why the LLM judge's verdict does not stand ("timeout"), where it was asked and did not
    # decide; "" otherwise (llm_notes.py).
    llm_fallback: str = ""
    evidence: tuple[EvidenceView, ...] = ()  # the claim's card: the passages that decided it
    # The earlier sentences the claim was read with, to resolve what it refers to.
    read_with: tuple[str, ...] = ()

    @property
    def llm_decided(self) -> bool:
        return self.checked_by == LLM_JUDGE

    @property
    def llm_judge(self) -> str:
        """The sentence saying the LLM judge decided the claim or fell back; "" if neither."""
        if self.llm_decided:
            return llm_notes.DECIDED
        return (
            llm_notes.fallback_note(self.llm_fallback, self.checked_by) if self.llm_fallback else ""
        )

    @property
    def llm_judge_mark(self) -> str:
        """The short visible mark ("LLM judge", "LLM fell back"); "" if neither."""
        if self.llm_decided:
            return llm_notes.MARK
        return llm_notes.FELL_BACK_MARK if self.llm_fallback else ""

    @property
    def language_name(self) -> str:
        return language_name(self.language) if self.language else ""

    @property
    def word_matching_mark(self) -> str:
        """The short visible mark of a word-matched claim ("Hebrew: word matching")."""
        return mark_text(self.language) if self.word_matching else ""

    @property
    def score_band(self) -> str:
        """'high', 'mid' or 'low' for the inline underline; '' without a score."""
        if self.score is None:
            return ""
        return "high" if self.score >= HIGH_SCORE else "mid" if self.score >= LOW_SCORE else "low"

    @property
    def is_problem(self) -> bool:
        """What the j/k keys and the "unsupported only" filter stop at."""
        return self.verdict == "unsupported"

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
    markdown: bool = False  # some part is shown rendered from Markdown
    has_markdown: bool = False  # some part has Markdown in it (the switch is worth showing)
    word_matching: str = ""  # one line when some claim was word-matched (languages.py)
    llm_judge: str = ""  # one line when the LLM judge decided or fell back on some claim

    @property
    def summary_bar(self) -> list[tuple[str, str, int, str, str]]:
        """(verdict, label, count, x, width) of each non-empty verdict's bar segment; x and
        width in percent of all claims, formatted for SVG attributes."""
        total = sum(self.verdict_counts.values()) or 1
        out, at = [], 0.0
        for key, n in self.verdict_counts.items():
            if n:
                width = 100 * n / total
                out.append((key, VERDICT_LABELS[key], n, f"{at:.3f}", f"{width:.3f}"))
                at += width
        return out

    @property
    def widget_numbers(self) -> range:
        return range(self.widget_count)

    @property
    def parts(self) -> list[tuple[str, str]]:
        """(HTML, direction) per part, for the template."""
        return list(zip(self.parts_html, self.parts_dir, strict=True))


def render_answer(
    grounded: GroundedAnswer, markdown: bool | None = False, judge: JudgeInfo | None = None
) -> tuple[RenderedCandidate, ...]:
    """`markdown`: True renders Markdown, False the plain text, None decides per part.
    `judge`: what the engine's model reads, for the word-matching sentences (by default
    the live engine's, if it is loaded; see `languages.py`). A Gemini or agent answer's
    sentences that nothing cites are listed as claims without a citation."""
    judge = judge or JudgeInfo()
    uncited = grounded.format in CITING_FORMATS
    return tuple(
        render_candidate(c, i, markdown, judge, uncited=uncited)
        for i, c in enumerate(grounded.candidates)
    )


def _verdict(segment: Segment) -> str:
    return segment.verdict or "cited"


def _verdict_label(segment: Segment, verdict: str, cited: bool) -> str:
    """The verdict in words; for a sentence not checked, why ("Heading — not checked")."""
    if verdict == "no_check" and segment.no_check_reason in NO_CHECK_LABELS:
        return NO_CHECK_LABELS[segment.no_check_reason]
    return VERDICT_LABELS[verdict] if cited or verdict != "cited" else UNJUDGED


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


def _read_with(parts: tuple[str, ...], segment: Segment) -> tuple[str, ...]:
    """The sentences a claim was read with, as the answer writes them; spans that do not
    fit its part are left out (the claim is shown all the same)."""
    if not 0 <= segment.part < len(parts):
        return ()
    found = []
    for start, end in segment.read_with:
        try:
            found.append(slice_bytes(parts[segment.part], start, end).strip())
        except OffsetError:
            continue
    return tuple(text for text in found if text)


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


def _word_spans(
    parts: tuple[str, ...], prefixes: dict[int, list[int]], segment: Segment
) -> list[tuple[int, int]]:
    """Char spans of the segment's unsupported words; any that cannot be mapped is left out."""
    spans = []
    for start, end in segment.unsupported:
        try:
            spans.append(_char_span(parts, prefixes, Segment(segment.part, start, end, "")))
        except OffsetError:
            continue
    return spans


@dataclass
class _Layout:
    """What the claims pass leaves for the later steps: problems found, the claims that
    cite each source, and each part's placed claims and unsupported words."""

    candidate: Candidate
    prefix: str
    problems: list[Problem]
    cited_by: dict[int, list[tuple[int, str]]] = field(default_factory=lambda: defaultdict(list))
    prefixes: dict[int, list[int]] = field(default_factory=dict)
    placed: dict[int, list[tuple[int, int, ClaimView]]] = field(
        default_factory=lambda: defaultdict(list)
    )
    words_in: dict[int, list[tuple[int, int]]] = field(default_factory=lambda: defaultdict(list))

    def source_anchor(self, source_index: int) -> str:
        return f"{self.prefix}src-{source_index + 1}"


def _citations(
    layout: _Layout, segment: Segment, n: int, anchor: str
) -> tuple[list[CitationView], list[AttributionView]]:
    """The segment's citations and the attributions its sources require; a citation of a
    source that does not exist is a problem, not a link."""
    candidate = layout.candidate
    citations: list[CitationView] = []
    attributions: list[AttributionView] = []
    for source_index in segment.source_indices:
        if not 0 <= source_index < len(candidate.sources):
            layout.problems.append(
                Problem(
                    f"segment {n}",
                    f"cites source {source_index}, but there are only "
                    f"{len(candidate.sources)} sources.",
                )
            )
            continue
        citations.append(CitationView(source_index + 1, layout.source_anchor(source_index)))
        layout.cited_by[source_index].append((n, anchor))
        source = candidate.sources[source_index]
        if source.requires_attribution:
            href = safe_href(source.uri)
            title = _source_title(source, source_index + 1, _domain(source, href))
            attributions.append(AttributionView(title, source.uri, href))
    return citations, attributions


def _claim_view(layout: _Layout, segment: Segment, n: int, judge: JudgeInfo) -> ClaimView:
    """One segment as a claim, placed on its part's text where its offsets map."""
    parts = layout.candidate.parts
    anchor = f"{layout.prefix}claim-{n}"
    try:
        span: tuple[int, int] | None = _char_span(parts, layout.prefixes, segment)
    except OffsetError as exc:
        span = None
        layout.problems.append(
            Problem(f"segment {n}", f"{exc}; it is listed but not marked in the text.")
        )
    citations, attributions = _citations(layout, segment, n, anchor)
    verdict = _verdict(segment)
    words = _word_spans(parts, layout.prefixes, segment) if span is not None else []
    text = _claim_text(parts, segment, span)
    part_text = parts[segment.part] if span is not None else ""
    claim = ClaimView(
        number=n,
        anchor=anchor,
        text=text,
        verdict=verdict,
        verdict_label=_verdict_label(segment, verdict, bool(citations)),
        score=segment.score,
        score_text="" if segment.score is None else f"{segment.score:.2f}",
        confidence_text=", ".join(f"{c:.2f}" for c in segment.confidence),
        citations=tuple(citations),
        attributions=tuple(attributions),
        placed=span is not None,
        text_html=_with_words(part_text, *span, words) if span else html.escape(text),
        unsupported_words=tuple(part_text[a:b] for a, b in words),
        language=segment.language,
        checked_by=segment.checked_by,
        word_matching=judge.note(segment.language) if segment.checked_by == WORD_MATCHING else "",
        llm_fallback=""
        if segment.checked_by == LLM_JUDGE
        else llm_notes.fallback_reason(segment.llm_judge),
        evidence=_evidence(layout, segment, text),
        read_with=_read_with(parts, segment),
    )
    if span is not None:
        layout.placed[segment.part].append((span[0], span[1], claim))
        layout.words_in[segment.part].extend(words)
    return claim


_MARK_WORDS = {NUMBER_MARK: "a number of the claim"}
_NAME_WORDS = "a name of the claim"


def passage_html(claim: str, passage: str) -> str:
    """Escaped `passage` with the claim's numbers and names marked where it states them
    (`engine.claim_marks`, UTF-8 byte spans): a `<mark>` per kind, named for screen
    readers, so a reviewer sees at once whether the evidence holds the claim's figures."""
    prefix = byte_prefix(passage)
    out, at = [], 0
    for start_byte, end_byte, kind in claim_marks(claim, passage):
        start, end = char_index(passage, start_byte, prefix), char_index(passage, end_byte, prefix)
        words = _MARK_WORDS.get(kind, _NAME_WORDS)
        out.append(html.escape(passage[at:start]))
        out.append(
            f'<mark class="ev-mark ev-{kind}" title="{words.capitalize()}">'
            f'{html.escape(passage[start:end])}<span class="sr-only"> ({words})</span></mark>'
        )
        at = end
    out.append(html.escape(passage[at:]))
    return "".join(out)


_WHY = {
    "closest": "Closest passage in the facts: the claim cites none, and its words marked "
    "not in the evidence were looked for here.",
    "numbers": "From a cited fact: this passage states numbers of the claim that the cited "
    "passages do not.",
}


def _fact_view(passage: FactPassage, claim: str) -> EvidenceView:
    label = f"Fact {passage.fact_index + 1}"
    return EvidenceView(
        label, "", passage.title, passage_html(claim, passage.text), _WHY[passage.reason]
    )


def _evidence(layout: _Layout, segment: Segment, claim: str) -> tuple[EvidenceView, ...]:
    """The claim's card: each passage it cites, then the passage of the facts it needs
    beside them (`FactPassage`), if any."""
    sources = layout.candidate.sources
    views = []
    for i in dict.fromkeys(segment.source_indices):
        if not 0 <= i < len(sources):
            continue
        source = sources[i]
        href = safe_href(source.uri)
        title = _source_title(source, i + 1, _domain(source, href))
        text = passage_html(claim, source.text) if source.text else ""
        views.append(EvidenceView(f"Source {i + 1}", layout.source_anchor(i), title, text))
    if segment.evidence is not None:
        views.append(_fact_view(segment.evidence, claim))
    return tuple(views)


def _uncited(layout: _Layout, first: int) -> list[tuple[tuple[int, int], ClaimView]]:
    """The sentences of a citing format's answer that no segment touches, as claims
    without a citation ((part, char start) and view each), numbered from `first`: the
    format lists only what it cites, and a sentence it left out must not vanish. Markdown
    structure and sentences that assert nothing are left out, as the engine leaves them."""
    out = []
    n = first
    for p, text in enumerate(layout.candidate.parts):
        taken = [(a, b) for a, b, _ in layout.placed[p]]
        for sentence in split_claims(text):
            if sentence.no_check_reason is not None or not needs_grounding_check(sentence.text):
                continue
            span = _char_span(
                layout.candidate.parts,
                layout.prefixes,
                Segment(p, sentence.start, sentence.end, ""),
            )
            if span[0] == span[1] or any(a < span[1] and span[0] < b for a, b in taken):
                continue
            claim = ClaimView(
                number=n,
                anchor=f"{layout.prefix}uncited-{n}",
                text=text[span[0] : span[1]],
                verdict="uncited",
                verdict_label=VERDICT_LABELS["uncited"],
                score=None,
                score_text="",
                confidence_text="",
                citations=(),
                attributions=(),
                placed=True,
                text_html=html.escape(text[span[0] : span[1]]),
            )
            layout.placed[p].append((span[0], span[1], claim))
            out.append(((p, span[0]), claim))
            n += 1
    return out


def _in_text_order(
    claims: Sequence[ClaimView],
    keys: Sequence[tuple[int, int] | None],
    uncited: Sequence[tuple[tuple[int, int], ClaimView]],
) -> tuple[ClaimView, ...]:
    """The claims in their order, each sentence without a citation placed before the
    first claim that starts after it (claims not placed in the text keep their place)."""
    out: list[ClaimView] = []
    pending = list(uncited)
    for claim, key in zip(claims, keys, strict=True):
        while pending and key is not None and pending[0][0] < key:
            out.append(pending.pop(0)[1])
        out.append(claim)
    out.extend(claim for _, claim in pending)
    return tuple(out)


def _source_views(layout: _Layout) -> tuple[SourceView, ...]:
    sources = []
    for i, source in enumerate(layout.candidate.sources):
        href = safe_href(source.uri)
        domain = _domain(source, href)
        sources.append(
            SourceView(
                number=i + 1,
                anchor=layout.source_anchor(i),
                title=_source_title(source, i + 1, domain),
                domain=domain,
                uri=source.uri,
                href=href,
                text=source.text,
                metadata=tuple(source.metadata.items()),
                requires_attribution=source.requires_attribution,
                cited_by=tuple(layout.cited_by[i]),
            )
        )
    return tuple(sources)


def _query_views(candidate: Candidate) -> tuple[QueryView, ...]:
    uris = candidate.search_suggestion_uris
    return tuple(
        QueryView(
            q, uris[i] if i < len(uris) else "", safe_href(uris[i]) if i < len(uris) else None
        )
        for i, q in enumerate(candidate.web_search_queries)
    )


def _verdict_counts(claims: Sequence[ClaimView]) -> dict[str, int]:
    counts = {key: 0 for key in VERDICT_LABELS}
    for claim in claims:
        counts[claim.verdict] += 1
    return counts


def prose_direction(text: str, tokens: list[Token] | None = None) -> str:
    """A whole answer's direction, by the words of its prose (`bidi.base_direction`):
    code blocks and code spans left out, as a Hebrew answer may quote more English code
    than it has words; "" where no word decides. `tokens`: `block_tokens(text)`."""
    prose = [
        child.content
        for token in (block_tokens(text) if tokens is None else tokens)
        if token.type == "inline"
        for child in token.children or ()
        if child.type == "text"
    ]
    return base_direction(" ".join(prose)) or base_direction(text)


@dataclass(frozen=True)
class _PartsHtml:
    html: tuple[str, ...]
    markdown: bool  # some part is rendered from Markdown
    has_markdown: bool  # some part has Markdown in it
    directions: tuple[str, ...]  # each part's: "ltr", "rtl" or "auto"


def _parts_html(layout: _Layout, markdown: bool | None) -> _PartsHtml:
    """Each part as HTML with its claims marked: from Markdown where asked (or, with
    `markdown=None`, where it has some) and where the marks can be placed in it."""
    parts, placed, words_in = layout.candidate.parts, layout.placed, layout.words_in
    tokens = [block_tokens(text) for text in parts]
    has_markdown = [looks_like_markdown(t, tokens[p]) for p, t in enumerate(parts)]
    as_markdown = [
        can_place(text, 2 * len(placed[p]) + 2 * len(words_in[p]))
        and (markdown if markdown is not None else has_markdown[p])
        for p, text in enumerate(parts)
    ]
    return _PartsHtml(
        tuple(
            markdown_part_html(text, placed[p], words_in[p], tokens[p])
            if as_markdown[p]
            else part_html(text, placed[p], words_in[p])
            for p, text in enumerate(parts)
        ),
        any(as_markdown),
        any(has_markdown),
        tuple(prose_direction(text, tokens[p]) or "auto" for p, text in enumerate(parts)),
    )


def render_candidate(
    candidate: Candidate,
    index: int,
    markdown: bool | None = False,
    judge: JudgeInfo | None = None,
    *,
    uncited: bool = False,
) -> RenderedCandidate:
    """The candidate in steps: claims (placing them, noting problems; with `uncited`, the
    sentences nothing cites too), then sources (with the claims citing each), queries,
    counts and the parts' HTML."""
    judge = judge or JudgeInfo()
    layout = _Layout(candidate, f"c{index}-", list(candidate.problems))
    claims = tuple(
        _claim_view(layout, segment, n, judge)
        for n, segment in enumerate(candidate.segments, start=1)
    )
    if uncited:
        starts = {id(c): (p, a) for p, placed in layout.placed.items() for a, _, c in placed}
        keys = [starts.get(id(c)) for c in claims]
        claims = _in_text_order(claims, keys, _uncited(layout, len(claims) + 1))
    parts = _parts_html(layout, markdown)
    return RenderedCandidate(
        index=index,
        parts_html=parts.html,
        parts_dir=parts.directions,
        claims=claims,
        sources=_source_views(layout),
        problems=tuple(layout.problems),
        support_score=candidate.support_score,
        queries=_query_views(candidate),
        widget_count=len(candidate.search_entry_html),
        verdict_counts=_verdict_counts(claims),
        markdown=parts.markdown,
        has_markdown=parts.has_markdown,
        word_matching=summary(
            [c.language for c in claims if c.word_matching],
            sum(1 for c in claims if c.checked_by),
            judge,
        ),
        llm_judge=llm_notes.summary(
            sum(1 for c in claims if c.llm_decided),
            [(c.llm_fallback, c.checked_by) for c in claims if c.llm_fallback],
        ),
    )


# U+2060 WORD JOINER, so no line break falls between a claim's last character and its
# markers (CJK text may break after any character).
_GLUE = '<span class="ann" aria-hidden="true">\u2060</span>'


def _markers(claim: ClaimView) -> str:
    out = [_GLUE]
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
    if claim.score_text:
        out.append(
            f'<span class="ann score-tag s-{claim.score_band}" aria-hidden="true">'
            f"{claim.score_text}</span>"
        )
    if claim.word_matching:
        # English words in a claim of any direction: an isolate of its own (dir="ltr"),
        # glued to the markers before it so it never starts a line of its own.
        out.append(_GLUE)
        out.append(
            f'<span class="ann wm-mark" dir="ltr" title="{html.escape(claim.word_matching)}" '
            f'aria-hidden="true">{html.escape(claim.word_matching_mark)}</span>'
        )
    if claim.llm_judge:
        out.append(_GLUE)
        out.append(llm_mark_html(claim, inline=True))
    spoken = claim.verdict_label + (f", score {claim.score_text}" if claim.score_text else "")
    if claim.word_matching:
        spoken += f"; {claim.word_matching}"
    if claim.llm_judge:
        spoken += f"; {claim.llm_judge}"
    out.append(f'<span class="ann sr-only">({html.escape(spoken)})</span>')
    return "".join(out)


def llm_mark_html(claim: ClaimView, inline: bool = False) -> str:
    """The LLM judge's mark of a claim: English words, so an isolate of its own (dir="ltr")
    beside a claim of any direction; its sentence in the title (screen readers get it
    from the spoken verdict or the row's note). A fallback is dashed, not only coloured.
    `inline` (in the answer): its words joined by no-break spaces, not `nowrap`, which
    Chromium breaks before even after a word joiner, leaving the mark on a line alone."""
    kind = "llm-decided" if claim.llm_decided else "llm-fell-back"
    words = html.escape(claim.llm_judge_mark)
    if inline:
        words = words.replace(" ", "\u00a0")
    return (
        f'<span class="{"ann " if inline else ""}llm-mark {kind}" dir="ltr" '
        f'title="{html.escape(claim.llm_judge)}" aria-hidden="true">{words}</span>'
    )


def _open_span(active: list[tuple[int, int, ClaimView]], tabindex: str = ' tabindex="0"') -> str:
    innermost = max(active, key=lambda item: (item[0], item[2].number))[2]
    claims = " ".join(claim.anchor for _, _, claim in active)
    sources = " ".join(dict.fromkeys(c.anchor for _, _, claim in active for c in claim.citations))
    band = f" s-{innermost.score_band}" if innermost.score_band else ""
    return (
        f'<span class="claim v-{innermost.verdict}{band}" data-claims="{claims}" '
        f'data-sources="{sources}"{tabindex}>'
    )


def _with_words(text: str, start: int, end: int, words: Sequence[tuple[int, int]]) -> str:
    """Escaped text[start:end] with the unsupported words in it wrapped, so that a claim
    stays one span."""
    out, at = [], start
    for w_start, w_end in sorted(words):
        w_start, w_end = max(w_start, at), min(w_end, end)
        if w_start >= w_end:
            continue
        out.append(html.escape(text[at:w_start]))
        out.append(f'<span class="unsupported-word">{html.escape(text[w_start:w_end])}</span>')
        at = w_end
    out.append(html.escape(text[at:end]))
    return "".join(out)


class _Underlines:
    """Unsupported-word spans merged and sorted, so each piece of a part looks up only
    its own words (every word per piece made a long answer quadratic)."""

    def __init__(self, words: Sequence[tuple[int, int]]) -> None:
        self.spans: list[tuple[int, int]] = []
        for start, end in sorted(words):
            if self.spans and start < self.spans[-1][1]:
                self.spans[-1] = (self.spans[-1][0], max(end, self.spans[-1][1]))
            else:
                self.spans.append((start, end))
        self.ends = [end for _, end in self.spans]

    def within(self, start: int, end: int) -> list[tuple[int, int]]:
        """The spans that overlap [start, end)."""
        out = []
        i = bisect_right(self.ends, start)
        while i < len(self.spans) and self.spans[i][0] < end:
            out.append(self.spans[i])
            i += 1
        return out


def part_html(
    text: str,
    spans: list[tuple[int, int, ClaimView]],
    words: list[tuple[int, int]] = (),  # type: ignore[assignment]
) -> str:
    """Escaped `text` with each span wrapped and its markers placed right after its end.

    `spans` are (start char, end char, claim), already validated against `text`; `words`
    are char spans of unsupported words, underlined inside their claim.
    """
    if not spans:
        return html.escape(text)
    underlined = _Underlines(words)
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
            if active:
                piece = _with_words(
                    text, pos, boundaries[i + 1], underlined.within(pos, boundaries[i + 1])
                )
                out.append(f"{_open_span(active)}{piece}</span>")
            else:
                out.append(html.escape(text[pos : boundaries[i + 1]]))
    return "".join(out)


_WORD_END, _CLAIM_END, _CLAIM_START, _WORD_START = range(4)
_BLOCK_OPEN = re.compile(r'<(p|li|h[1-6]|blockquote|td|th)((?: class="align-[a-z]+")?)>')
_BLOCK_CLOSE = re.compile(r"</(p|li|h[1-6]|blockquote|td|th)>")
_CODE_TAG = re.compile(r"<(/?)(?:code|pre)\b")


def _block_directions(rendered: str) -> list[str]:
    """The direction of each block of rendered Markdown, in order, from its own words
    (`bidi.base_direction`: a Hebrew item that opens with "Python" is right to left),
    a list item's nested paragraphs included and code left out; "auto" where no word
    decides. `dir="auto"` would take the first strong letter instead."""
    texts: list[list[str]] = []
    open_blocks: list[int] = []
    in_code = 0
    for kind, value in pieces(rendered):
        if kind == "tag":
            if _BLOCK_OPEN.fullmatch(value):
                open_blocks.append(len(texts))
                texts.append([])
            elif _BLOCK_CLOSE.fullmatch(value) and open_blocks:
                open_blocks.pop()
            elif code := _CODE_TAG.match(value):
                in_code = max(0, in_code + (-1 if code[1] else 1))
        elif kind == "text" and not in_code:
            for block in open_blocks:
                texts[block].append(html.unescape(value))
    return [base_direction(" ".join(text)) or "auto" for text in texts]


def _directed(out: str, rendered: str) -> str:
    """`out` (rendered Markdown with claims marked) with each block's direction stated:
    its blocks are `rendered`'s, in the same order, as markers hold no block."""
    directions = iter(_block_directions(rendered))
    return _BLOCK_OPEN.sub(lambda m: f'<{m[1]}{m[2]} dir="{next(directions)}">', out)


def markdown_part_html(
    text: str,
    spans: list[tuple[int, int, ClaimView]],
    words: Sequence[tuple[int, int]] = (),
    tokens: list[Token] | None = None,
) -> str:
    """`text` rendered from Markdown, claims wrapped and markers after each claim's end.

    A claim may cross tags (emphasis, list items), so each run of its text is wrapped
    separately; only the first is focusable. At one position, word ends come first, then
    claim ends (with their markers), claim starts and word starts.
    """
    # (char position, order at that position, claim or None for a word boundary)
    events: list[tuple[int, int, tuple[int, int, ClaimView] | None]] = []
    for span in spans:
        if span[0] != span[1]:
            events.append((span[0], _CLAIM_START, span))
        events.append((span[1], _CLAIM_END, span))
    for start, end in words:
        events.append((start, _WORD_START, None))
        events.append((end, _WORD_END, None))
    events.sort(key=lambda e: (e[0], e[1]))
    rendered = render_markdown(text, [e[0] for e in events], tokens)
    active: list[tuple[int, int, ClaimView]] = []
    focused: set[int] = set()
    in_word = 0
    out: list[str] = []
    for kind, value in pieces(rendered):
        if kind == "tag" or (kind == "text" and not active):
            out.append(value)
        elif kind == "text":
            fresh = {c.number for _, _, c in active} - focused
            focused |= fresh
            piece = f'<span class="unsupported-word">{value}</span>' if in_word else value
            opening = _open_span(active, ' tabindex="0"' if fresh else "")
            out.append(f"{opening}{piece}</span>")
        else:
            _, order, span = events[value]
            if order in (_WORD_START, _WORD_END):
                in_word += 1 if order == _WORD_START else -1
            elif span is not None and order == _CLAIM_START:
                active.append(span)
            elif span is not None:
                if span in active:
                    active.remove(span)
                out.append(_markers(span[2]))
    return _directed("".join(out), rendered)


def labeling_html(text: str, spans: Sequence[tuple[int, int, int]]) -> tuple[str, bool]:
    """The labeling page's answer as the review page draws it: (HTML, rendered from
    Markdown). `spans` are (start char, end char, claim number), in order and disjoint;
    each run of a claim's text is an `.ann-claim` span, so a claim split by emphasis or
    a link is still marked. Plain text, or a text no sentinel can be placed in, is escaped."""
    tokens = block_tokens(text)
    if not (looks_like_markdown(text, tokens) and can_place(text, 2 * len(spans))):
        out, at = [], 0
        for start, end, number in spans:
            out.append(html.escape(text[at:start]))
            out.append(_ann_claim(number, text[start:end], html.escape(text[start:end])))
            at = end
        out.append(html.escape(text[at:]))
        return "".join(out), False
    rendered = render_markdown(text, [point for s in spans for point in s[:2]], tokens)
    active: tuple[int, int, int] | None = None
    out = []
    for kind, value in pieces(rendered):
        if kind == "point":
            active = spans[value // 2] if value % 2 == 0 else None
        elif kind == "text" and active is not None:
            out.append(_ann_claim(active[2], text[active[0] : active[1]], value))
        else:
            out.append(value)
    return _directed("".join(out), rendered), True


def _ann_claim(number: int, claim: str, inner: str) -> str:
    """One run of a claim on the labeling page; `inner` is escaped already."""
    return f'<span class="ann-claim"{dir_attribute(claim)} data-claim-ref="{number}">{inner}</span>'
