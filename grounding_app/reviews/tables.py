"""The rows of a review's claims table, built in Python.

A 200-claim review has 200 rows of six cells; through the template language they cost
more than everything else on the page, so they are escaped here once (`html.escape`
on every untrusted value, as the template would) and the template marks the result
safe. The one row whose verdict form is open gets its form from a small template
(`reviews/_verdict_form.html`), which needs the request for its CSRF token.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from html import escape, unescape
from urllib.parse import urlencode

from grounding_app.policies.rules import REDIRECT_HOSTS, SourceRef, source_domain
from grounding_app.rendering.answer import (
    ClaimView,
    EvidenceView,
    RenderedCandidate,
    SourceView,
    llm_mark_html,
)
from grounding_app.rendering.bidi import dir_attribute
from grounding_app.rendering.links import LINK_REL
from grounding_app.reviews.inline import claim_html, claim_text
from grounding_app.reviews.models import ReviewerVerdict


def _attributions(claim: ClaimView) -> str:
    out = []
    for a in claim.attributions:
        if a.href:
            body = (
                f'<a href="{escape(a.href)}" rel="{LINK_REL}" target="_blank">'
                f"<bdi>{escape(a.title)}</bdi></a>"
            )
        else:
            body = f"<bdi>{escape(a.title)}</bdi>"
            if a.uri:
                body += f' <bdi class="link-refused">{escape(a.uri)}</bdi>'
        out.append(f'<span class="attribution">{body}</span>')
    return "".join(out)


_TAG = re.compile(r"<[^>]*>")


def _passage_card(view: EvidenceView) -> str:
    label = (
        f'<a href="#{view.anchor}">{escape(view.label)}</a>' if view.anchor else escape(view.label)
    )
    title = f' <bdi class="ev-title">{escape(view.title)}</bdi>' if view.title else ""
    note = f'<p class="ev-note">{escape(view.note)}</p>' if view.note else ""
    body = (
        f'<blockquote class="ev-text"{dir_attribute(unescape(_TAG.sub("", view.html)))}>'
        f"{view.html}</blockquote>"
        if view.html
        else '<p class="muted ev-none">No passage text came with this source.</p>'
    )
    kind = "ev-fact" if not view.anchor else "ev-source"
    return (
        f'<div class="ev-passage {kind}"><p class="ev-label">{label}{title}</p>{note}{body}</div>'
    )


def _evidence_card(claim: ClaimView) -> str:
    """The claim's card: the passages that decided it, its numbers and names marked; open
    on an unsupported claim, whose reader wants to see what the evidence says."""
    if not claim.evidence:
        return ""
    opened = " open" if claim.is_problem else ""
    labels = ", ".join(escape(v.label) for v in claim.evidence)
    return (
        f'<details class="evidence-card"{opened}><summary>Evidence '
        f'<span class="muted">{labels}</span></summary>'
        f"{''.join(_passage_card(v) for v in claim.evidence)}</details>"
    )


def _copy_name(claim: ClaimView) -> str:
    return (
        "the sentence without citation" if claim.verdict == "uncited" else f"claim {claim.number}"
    )


def _claim_cell(claim: ClaimView, markdown: bool, excluded: Mapping[str, str]) -> str:
    # Shown rendered, a claim with Markdown in it reads as the answer does (its
    # unsupported words are listed below it); otherwise as it is, words marked.
    rendered = markdown and claim_text(claim.text) != claim.text
    out = [claim_html(claim.text) if rendered else claim.text_html]
    if not claim.placed:
        out.append(' <span class="tag tag-warn">not marked in the text</span>')
    if claim.unsupported_words:
        words = ", ".join(
            f'<span class="unsupported-word"><bdi>{escape(w)}</bdi></span>'
            for w in claim.unsupported_words
        )
        out.append(f'<span class="unsupported-list" dir="ltr">Not in the evidence: {words}</span>')
    if claim.word_matching:
        out.append(
            '<span class="wm-note" dir="ltr"><span class="wm-mark wm-icon" aria-hidden="true">'
            f"</span>{escape(claim.word_matching)}</span>"
        )
    if claim.llm_fallback:
        out.append(f'<span class="llm-note" dir="ltr">{escape(claim.llm_judge)}</span>')
    if claim.read_with:
        quoted = " ".join(f"“<bdi>{escape(claim_text(text))}</bdi>”" for text in claim.read_with)
        out.append(f'<span class="context-note" dir="ltr">Read with {quoted}</span>')
    for c in claim.citations:
        if c.anchor in excluded:
            out.append(
                f'<span class="tag tag-warn policy-flag">source {c.number} is from an excluded '
                f"domain: <bdi>{escape(excluded[c.anchor])}</bdi></span>"
            )
    out.append(_attributions(claim))
    out.append(_evidence_card(claim))
    out.append(
        f'<button type="button" class="js-only button-link copy" data-copy="{escape(claim.text)}"'
        f' aria-label="Copy {_copy_name(claim)}">Copy</button>'
    )
    # Stated, by most words: a Hebrew claim that opens with a Latin name is Hebrew.
    return f'<td class="claim-text"{dir_attribute(claim.text)}>{"".join(out)}</td>'


def _verdict_cell(claim: ClaimView) -> str:
    """The verdict, and beside it the LLM judge's mark where it decided or fell back (the
    decided one's sentence for screen readers; a fallback's is the claim's note)."""
    out = f'<span class="badge v-{claim.verdict}">{claim.verdict_label}</span>'
    if claim.llm_judge:
        spoken = claim.llm_judge if claim.llm_decided else claim.llm_judge_mark
        out += f'{llm_mark_html(claim)}<span class="sr-only">{escape(spoken)}</span>'
    return f'<td class="verdict">{out}</td>'


def _score_cell(claim: ClaimView) -> str:
    score = (
        f'<span class="score-tag s-{claim.score_band}">{claim.score_text}</span>'
        if claim.score_text
        else "—"
    )
    if claim.language and claim.checked_by:
        # Every checked claim's language, beside its score: the code, named in words.
        score += (
            f'<span class="lang-code" title="{escape(claim.language_name)}">'
            f'<span aria-hidden="true">{escape(claim.language.upper())}</span>'
            f'<span class="sr-only">{escape(claim.language_name)}</span></span>'
        )
    if claim.confidence_text:
        score += (
            '<span class="confidence" title="Confidence per cited source">'
            f"conf. {escape(claim.confidence_text)}</span>"
        )
    return f'<td class="score" data-label="Score">{score}</td>'


def _mine_cell(
    candidate: int,
    claim: ClaimView,
    mine: ReviewerVerdict | None,
    form: str | None,
    query: dict[str, str],
) -> str:
    out = []
    if mine is not None and mine.verdict:
        out.append(
            f'<span class="badge v-{escape(mine.verdict)}">'
            f"{escape(str(mine.get_verdict_display()))}</span>"
        )
        if mine.disagrees:
            out.append(' <span class="tag tag-warn">disagrees</span>')
    if mine is not None and mine.note:
        out.append(f'<p class="my-note" dir="auto">{escape(mine.note)}</p>')
    if form is not None:
        out.append(form)
    else:
        href = "?" + urlencode({**query, "verdict": f"{candidate}.{claim.number}"})
        label = "Change" if mine is not None else "Set verdict"
        out.append(f'<a class="set-verdict" href="{escape(href)}#{claim.anchor}">{label}</a>')
    if mine is not None:
        who = mine.set_by.get_username() if mine.set_by else "someone no longer here"
        out.append(
            f'<p class="muted audit">by <bdi>{escape(who)}</bdi>, '
            f'<time datetime="{mine.set_at.isoformat()}">'
            f"{mine.set_at:%d %b %Y, %H:%M} UTC</time></p>"
        )
    return f'<td class="mine" data-label="Reviewer">{"".join(out)}</td>'


def rows_html(
    candidate: RenderedCandidate,
    mine: dict[tuple[int, int], ReviewerVerdict],
    *,
    only_problems: bool,
    editing: tuple[int, int] | None,
    verdict_form: Callable[[int, ClaimView, ReviewerVerdict | None], str],
    query: dict[str, str],
    excluded: Mapping[str, str] | None = None,
) -> str:
    """The `<tr>`s of one candidate's claims table (problem claims only, if asked)."""
    out = []
    for claim in candidate.claims:
        if only_problems and not claim.is_problem:
            continue
        verdict = mine.get((candidate.index, claim.number))
        classes = f"claim-row v-{claim.verdict}"
        if claim.is_problem:
            classes += " is-problem"
        if verdict is not None and verdict.disagrees:
            classes += " disagrees"
        cites = (
            "".join(
                f'<a href="#{c.anchor}" class="cite-chip">{c.number}</a>' for c in claim.citations
            )
            or '<span class="muted">—</span>'
        )
        form = (
            verdict_form(candidate.index, claim, verdict)
            if editing == (candidate.index, claim.number)
            else None
        )
        # A sentence the import cites nowhere is no claim of it: no number, no verdict form.
        uncited = claim.verdict == "uncited"
        mine_cell = (
            '<td class="mine" data-label="Reviewer"><span class="muted">—</span></td>'
            if uncited
            else _mine_cell(candidate.index, claim, verdict, form, query)
        )
        out.append(
            f'<tr id="{claim.anchor}" class="{classes}" '
            f'data-sources="{claim.source_anchors}" tabindex="0">'
            f'<td class="num">{"" if uncited else claim.number}</td>'
            f"{_claim_cell(claim, candidate.markdown, excluded or {})}"
            f"{_verdict_cell(claim)}"
            f"{_score_cell(claim)}"
            f'<td class="cites" data-label="Sources">{cites}</td>'
            f"{mine_cell}</tr>"
        )
    return "\n".join(out)


def _site(source: SourceView) -> str:
    """The site a source is from, named as the policy section names it: a web source
    behind Gemini's redirect host is from the site its title names, not from Google."""
    if source.domain and source.domain not in REDIRECT_HOSTS:
        return source.domain
    return source_domain(SourceRef(source.title, source.uri)) or ""


def source_groups(candidate: RenderedCandidate) -> list[list[SourceView]]:
    """The candidate's sources, one group per document: the passages of one fact (same
    title, link, site and attributes) share a card, in the order first cited."""
    groups: dict[tuple[object, ...], list[SourceView]] = {}
    for s in candidate.sources:
        key = (s.title, s.uri, _site(s), s.metadata, s.requires_attribution)
        groups.setdefault(key, []).append(s)
    return list(groups.values())


def _cited_by(s: SourceView) -> str:
    if not s.cited_by:
        return ""
    links = " ".join(f'<a href="#{anchor}">{n}</a>' for n, anchor in s.cited_by)
    return f'<p class="cited-by">Cited by {links}</p>'


def _passage(s: SourceView) -> str:
    if not s.text:
        return ""
    return f'<blockquote class="chunk"{dir_attribute(s.text)}>{escape(s.text)}</blockquote>'


def sources_html(groups: list[list[SourceView]]) -> str:
    """The `<li>`s of one candidate's source list: a card per document, and in it each
    cited passage under the number the answer's markers use."""
    out = []
    for group in groups:
        s = group[0]
        title = escape(s.title)
        if s.href:
            title = f'<a href="{escape(s.href)}" rel="{LINK_REL}" target="_blank">{title}</a>'
        meta = []
        site = _site(s)
        if site and site != s.title:
            meta.append(f'<bdi class="domain">{escape(site)}</bdi>')
        if s.uri and not s.href:
            meta.append(
                '<bdi class="link-refused" title="Not a web link; shown as text">'
                f"{escape(s.uri)}</bdi>"
            )
        if s.requires_attribution:
            meta.append('<span class="tag tag-quiet">attribution required</span>')
        single = len(group) == 1
        if not single:
            meta.append(f'<span class="tag tag-quiet">{len(group)} passages cited</span>')
        numbers = f'<span class="source-num">{s.number}</span>' if single else ""
        body = [
            f'<li id="{s.anchor}" class="source">'
            if single
            else '<li class="source source-group">',
            f'<div class="source-head">{numbers}'
            f'<div class="source-id"><span class="source-title" dir="auto">{title}</span>'
            f'<span class="source-meta">{"".join(meta)}</span></div></div>',
        ]
        if single:
            body.append(_passage(s) + _cited_by(s))
        else:
            body.extend(
                f'<div id="{p.anchor}" class="passage"><span class="source-num">{p.number}</span>'
                f'<div class="passage-body">{_passage(p)}{_cited_by(p)}</div></div>'
                for p in group
            )
        if s.metadata:
            pairs = "".join(
                f'<div><dt dir="auto">{escape(k)}</dt><dd dir="auto">{escape(v)}</dd></div>'
                for k, v in s.metadata
            )
            body.append(f'<dl class="attrs">{pairs}</dl>')
        out.append("".join(body) + "</li>")
    return "\n".join(out)


def facts_html(facts: list[tuple[str, list[tuple[str, str]]]]) -> str:
    """The `<li>`s of the facts as given: (text, attribute pairs) each."""
    out = []
    for text, attributes in facts:
        item = f'<li><p dir="auto">{escape(text)}</p>'
        if attributes:
            pairs = "".join(
                f'<div><dt dir="auto">{escape(k)}</dt><dd dir="auto">{escape(v)}</dd></div>'
                for k, v in attributes
            )
            item += f'<dl class="attrs">{pairs}</dl>'
        out.append(item + "</li>")
    return "\n".join(out)
