"""The labeling page as data: the answer cut at its claims, the form's choices laid out,
the sources with their policy, so the template only prints them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from html import escape
from typing import Any

from grounding_app.annotations.labels import ClaimState, states_of
from grounding_app.annotations.models import (
    Assignment,
    Item,
    ItemClaim,
    LabelingProject,
)
from grounding_app.annotations.progress import Progress, annotator_progress
from grounding_app.engine import byte_prefix, char_index
from grounding_app.policies.models import SourcePolicy
from grounding_app.policies.rules import Verdict
from grounding_app.policies.services import fact_verdicts, project_policy
from grounding_app.rendering.answer import labeling_html
from grounding_app.rendering.links import safe_href
from grounding_app.reviews.inline import claim_html


@dataclass(frozen=True)
class FactView:
    index: int  # 0-based, as stored and exported
    number: int  # 1-based, as shown
    text: str
    attributes: tuple[tuple[str, str], ...]
    links: tuple[tuple[str, str], ...]  # (href, text) for attribute values that are web links
    has_text: bool = True  # False: a source with a title and link only (Gemini web chunk)
    policy: Verdict | None = None  # the project's source policy on this fact's domain


@dataclass(frozen=True)
class LabelOption:
    key: str
    name: str
    shortcut: int
    checked: bool


@dataclass(frozen=True)
class CiteOption:
    index: int  # 0-based, the form value
    number: int  # 1-based, as shown
    checked: bool
    model: bool  # the model cites this fact for the claim (never set when blind)


@dataclass(frozen=True)
class ClaimRow:
    """One claim with its form choices laid out, so the template only prints them."""

    claim: ItemClaim
    number: int
    state: ClaimState
    options: tuple[LabelOption, ...]
    cites: tuple[CiteOption, ...]
    model_cited: str  # 1-based fact numbers the model cites, space-separated ("" when blind)
    text_html: str = ""  # the claim as the answer shows it: from Markdown where it is


@dataclass(frozen=True)
class Piece:
    text: str
    number: int | None  # the claim the piece belongs to; None for the gaps between claims


def answer_pieces(answer: str, claims: Sequence[ItemClaim]) -> list[Piece]:
    """The answer cut at its claims' byte spans, so the page can mark each claim."""
    prefix = byte_prefix(answer)
    pieces: list[Piece] = []
    at = 0
    for number, claim in enumerate(claims, start=1):
        start = char_index(answer, claim.start, prefix)
        end = char_index(answer, claim.end, prefix)
        if start < at:  # claims from the engine never overlap; never mark one twice
            continue
        if start > at:
            pieces.append(Piece(answer[at:start], None))
        pieces.append(Piece(answer[start:end], number))
        at = end
    if at < len(answer):
        pieces.append(Piece(answer[at:], None))
    return pieces


def fact_views(
    facts: Sequence[dict[str, Any]],
    without_text: Iterable[int] = (),
    policy: Mapping[int, Verdict] | None = None,
) -> list[FactView]:
    missing = set(without_text)
    verdicts = policy or {}
    views = []
    for index, fact in enumerate(facts):
        attributes = tuple((str(k), str(v)) for k, v in fact.get("attributes", {}).items())
        links = tuple(
            (href, value) for _, value in attributes if (href := safe_href(value)) is not None
        )
        views.append(
            FactView(
                index,
                index + 1,
                fact.get("text", ""),
                attributes,
                links,
                has_text=index not in missing,
                policy=verdicts.get(index),
            )
        )
    return views


@dataclass(frozen=True)
class LabelPage:
    assignment: Assignment
    project: LabelingProject
    item: Item
    claims: tuple[ClaimRow, ...]
    facts: tuple[FactView, ...]
    pieces: tuple[Piece, ...]
    answer_html: str  # the answer with its claims marked, from Markdown where it has some
    markdown: bool
    labeled: int
    progress: Progress
    read_only: bool
    suggestion_count: int = 0  # Search Suggestions widgets that came with the answer
    policy: SourcePolicy | None = None

    @property
    def suggestion_numbers(self) -> range:
        return range(self.suggestion_count)

    @property
    def percent(self) -> int:
        return round(100 * self.labeled / len(self.claims)) if self.claims else 100


def label_page(assignment: Assignment, states: Mapping[int, ClaimState] | None = None) -> LabelPage:
    """Everything the labeling page shows, in a fixed handful of queries.

    `states` overrides the stored drafts (a refused submit shows what was posted).
    """
    item = assignment.item
    project = item.project
    claims = list(ItemClaim.objects.filter(item=item).order_by("index"))
    saved = states_of(assignment)
    if states is not None:
        saved.update(states)
    pieces = tuple(answer_pieces(item.answer, claims))
    spans, at = [], 0
    for piece in pieces:
        if piece.number is not None:
            spans.append((at, at + len(piece.text), piece.number))
        at += len(piece.text)
    answer_html, markdown = labeling_html(item.answer, spans)
    rows = []
    for n, claim in enumerate(claims, start=1):
        state = saved.get(claim.pk, ClaimState())
        model = set() if project.blind else set(claim.model_cited_facts)
        rows.append(
            ClaimRow(
                claim=claim,
                number=n,
                state=state,
                options=tuple(
                    LabelOption(label.key, label.name, label.shortcut, label.key == state.label)
                    for label in project.labels
                ),
                cites=tuple(
                    CiteOption(i, i + 1, i in state.cited, i in model)
                    for i in range(len(item.facts))
                ),
                model_cited=" ".join(str(i + 1) for i in sorted(model)),
                text_html=claim_html(claim.text) if markdown else escape(claim.text),
            )
        )
    meta = item.meta if isinstance(item.meta, dict) else {}
    policy = project_policy(project)
    verdicts = fact_verdicts(policy.rules, item.facts) if policy else None
    return LabelPage(
        assignment=assignment,
        project=project,
        item=item,
        claims=tuple(rows),
        facts=tuple(fact_views(item.facts, meta.get("facts_without_text", ()), verdicts)),
        pieces=pieces,
        answer_html=answer_html,
        markdown=markdown,
        labeled=sum(1 for row in rows if row.state.label),
        progress=annotator_progress(project, assignment.annotator),
        read_only=assignment.status != Assignment.Status.IN_PROGRESS,
        suggestion_count=len(meta.get("search_entry_html", ())),
        policy=policy,
    )


def suggestion_html(item: Item, number: int) -> str | None:
    """An item's untrusted Search Suggestions HTML, exactly as imported, or None."""
    meta = item.meta if isinstance(item.meta, dict) else {}
    htmls = meta.get("search_entry_html", [])
    if not isinstance(htmls, list) or not 0 <= number < len(htmls):
        return None
    html = htmls[number]
    return html if isinstance(html, str) else None
