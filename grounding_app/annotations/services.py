"""What the annotation views do, without HTTP: build projects, hand out items, keep
labels (agreement and adjudication are in `agreement`).

Handing out items is the one place where requests race: `next_assignment` runs in one
transaction that first locks the project row (`SELECT ... FOR UPDATE` on PostgreSQL; on
SQLite the IMMEDIATE transactions configured in settings already let one writer in at
a time), and the unique (item, annotator) and (item, slot) constraints back it up in
the database itself, so no item ever gets more than k annotators, nor one twice.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from html import escape
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Count, Max, Q, QuerySet
from django.utils import timezone

from grounding_app.accounts.roles import ADMIN, REVIEWER, has_role
from grounding_app.active_verifier.checker import checker
from grounding_app.annotations.models import (
    Assignment,
    ClaimLabel,
    Item,
    ItemClaim,
    LabelingProject,
)
from grounding_app.common.importing import (
    CheckedItem,
    ItemSource,
    check_item,
    from_grounded,
    grounded_meta,
    parse_jsonl,
    validated,
)
from grounding_app.common.serialize import grounded_from_json
from grounding_app.engine import byte_prefix, char_index
from grounding_app.policies.models import SourcePolicy
from grounding_app.policies.rules import Verdict
from grounding_app.policies.services import fact_verdicts, project_policy
from grounding_app.rendering.answer import labeling_html
from grounding_app.rendering.links import safe_href
from grounding_app.reviews.inline import claim_html
from grounding_app.reviews.models import Review
from grounding_app.reviews.services import stored_request

ALLOCATION_ATTEMPTS = 3
PROGRESS_EVERY = 10  # items checked between two progress writes of an import job


class LabelingError(ValueError):
    """A labeling action that cannot be done now; the message says why, for people."""


def is_lead(user: Any) -> bool:
    """Leads (reviewers and admins) create projects, see agreement, adjudicate, export."""
    return has_role(user, REVIEWER, ADMIN)


def visible_projects(user: Any) -> QuerySet[LabelingProject]:
    projects = LabelingProject.objects.all()
    return projects if is_lead(user) else projects.filter(annotators=user)


def can_label(user: Any, project: LabelingProject) -> bool:
    return project.annotators.filter(pk=user.pk).exists()


# --- Building projects ---------------------------------------------------------------


def _lock(project: LabelingProject) -> int | None:
    """Lock the project row until the transaction ends; its current overlap (None if gone)."""
    return (
        LabelingProject.objects.select_for_update()
        .filter(pk=project.pk)
        .values_list("overlap", flat=True)
        .first()
    )


def create_project(
    user: Any,
    *,
    name: str,
    instructions: str = "",
    extra_labels: Sequence[str] = (),
    overlap: int = 2,
    blind: bool = False,
    annotators: Iterable[Any] = (),
    items: Sequence[CheckedItem] = (),
) -> LabelingProject:
    """A new project with its first items, all or nothing."""
    with transaction.atomic():
        project = LabelingProject.objects.create(
            name=name,
            instructions=instructions,
            extra_labels=list(extra_labels),
            overlap=overlap,
            blind=blind,
            created_by=user if getattr(user, "is_authenticated", False) else None,
        )
        project.annotators.set(annotators)
        if items:
            add_items(project, items)
    return project


def add_items(
    project: LabelingProject, checked: Sequence[CheckedItem], review: Review | None = None
) -> list[Item]:
    """Store checked items at the end of the project, all or none."""
    with transaction.atomic():
        _lock(project)
        # _base_manager: expired items keep their positions until the purge deletes them.
        last = Item._base_manager.filter(project=project).aggregate(last=Max("position"))["last"]
        first = 0 if last is None else last + 1
        items = Item.objects.bulk_create(
            Item(
                project=project,
                position=first + n,
                external_id=c.source.external_id,
                source=c.source.source,
                answer=c.source.answer,
                facts=[{"text": f.text, "attributes": dict(f.attributes)} for f in c.source.facts],
                meta=c.source.meta,
                review=review,
            )
            for n, c in enumerate(checked)
        )
        ItemClaim.objects.bulk_create(
            ItemClaim(
                item=item,
                index=claim.index,
                start=claim.start,
                end=claim.end,
                text=claim.text,
                check_required=claim.check_required,
                model_verdict=claim.verdict,
                model_score=claim.score,
                model_cited_facts=list(claim.cited_facts),
                language=(claim.language or "")[:16],
                checked_by=claim.checked_by or "",
            )
            for item, c in zip(items, checked, strict=True)
            for claim in c.claims
        )
    return items


def checked_items(
    raw: str | bytes, progress: Callable[[int, int], None] | None = None
) -> list[CheckedItem]:
    """Parse every line and run the engine on each item, outside any transaction;
    `progress(done, total)` hears of every PROGRESS_EVERY items checked.

    Raises `importing.ImportProblems` naming every bad line.
    """
    sources = parse_jsonl(raw)
    checked = []
    for done, source in enumerate(sources):
        if progress is not None and done % PROGRESS_EVERY == 0:
            progress(done, len(sources))
        checked.append(check_item(source, checker().respond))
    return checked


def import_jsonl(project: LabelingProject, raw: str | bytes) -> list[Item]:
    """Add the items of a JSONL upload to a project; nothing is stored if a line is bad."""
    return add_items(project, checked_items(raw))


def review_source(review: Review) -> ItemSource:
    """A saved review as an item: its request's answer and facts, or its sources as facts."""
    request = stored_request(review)
    meta: dict[str, Any] = {"review": str(review.public_id)}
    if request is not None:
        answer, facts = request.answer, request.facts
    else:
        grounded = grounded_from_json(review.result)
        answer, facts = from_grounded(grounded)
        meta.update(grounded_meta(grounded))
    return validated(
        ItemSource(
            answer,
            facts,
            external_id=f"review-{review.public_id}",
            source=review.source_format,
            meta=meta,
        )
    )


def send_review(project: LabelingProject, review: Review) -> Item:
    """Copy a saved review into a project; raises LabelingError if it is already there."""
    if Item.objects.filter(project=project, review=review).exists():
        raise LabelingError(f"This review is already in “{project.name}”.")
    checked = check_item(review_source(review), checker().respond)
    try:
        return add_items(project, [checked], review=review)[0]
    except IntegrityError as exc:  # sent twice at once: the constraint keeps one
        raise LabelingError(f"This review is already in “{project.name}”.") from exc


# --- Handing out items ---------------------------------------------------------------


def _taken() -> Count:
    return Count("assignments", filter=Q(assignments__slot__isnull=False))


def _open_items(project_id: int, user: Any, overlap: int) -> QuerySet[Item]:
    """Items this annotator has never had that still have a free slot."""
    return (
        Item.objects.filter(project_id=project_id)
        .exclude(assignments__annotator=user)
        .annotate(taken=_taken())
        .filter(taken__lt=overlap)
    )


def _allocate(project: LabelingProject, user: Any) -> Assignment | None:
    overlap = _lock(project)
    if overlap is None:
        return None
    current = (
        Assignment.objects.filter(
            item__project_id=project.pk, annotator=user, status=Assignment.Status.IN_PROGRESS
        )
        .order_by("started_at", "id")
        .first()
    )
    if current is not None:
        return current
    # Items closest to k first, so that finished items (and agreement) come early.
    item = _open_items(project.pk, user, overlap).order_by("-taken", "position").first()
    if item is None:
        return None
    used = set(
        Assignment.objects.filter(item=item, slot__isnull=False).values_list("slot", flat=True)
    )
    slot = next(s for s in range(overlap) if s not in used)
    return Assignment.objects.create(item=item, annotator=user, slot=slot)


def next_assignment(project: LabelingProject, user: Any) -> Assignment | None:
    """The annotator's unfinished item, else a new one with a free slot, else None."""
    for attempt in range(ALLOCATION_ATTEMPTS):
        try:
            with transaction.atomic():
                return _allocate(project, user)
        except IntegrityError:
            # Only where the lock is not enough (a database without row locks and no
            # serialising transactions): the constraint refused a taken slot; look again.
            if attempt == ALLOCATION_ATTEMPTS - 1:
                raise
    return None


# --- Labels --------------------------------------------------------------------------


@dataclass(frozen=True)
class ClaimState:
    label: str = ""
    cited: tuple[int, ...] = ()
    note: str = ""


def _locked_open(assignment: Assignment) -> Assignment:
    locked = Assignment.objects.select_for_update().get(pk=assignment.pk)
    if locked.status == Assignment.Status.SUBMITTED:
        raise LabelingError("This item was already submitted; its labels can no longer change.")
    if locked.status == Assignment.Status.SKIPPED:
        raise LabelingError("This item was skipped; ask for the next item instead.")
    return locked


def _write(assignment: Assignment, states: Mapping[int, ClaimState]) -> None:
    existing = {
        label.claim_id: label
        for label in ClaimLabel.objects.filter(assignment=assignment, claim_id__in=list(states))
    }
    changed, new = [], []
    for claim_id, state in states.items():
        label = existing.get(claim_id)
        if label is None:
            new.append(
                ClaimLabel(
                    assignment=assignment,
                    claim_id=claim_id,
                    label=state.label,
                    cited_facts=list(state.cited),
                    note=state.note,
                )
            )
            continue
        label.label, label.cited_facts, label.note = state.label, list(state.cited), state.note
        label.updated_at = timezone.now()
        changed.append(label)
    ClaimLabel.objects.bulk_create(new)
    ClaimLabel.objects.bulk_update(changed, ["label", "cited_facts", "note", "updated_at"])


def save_draft(assignment: Assignment, states: Mapping[int, ClaimState]) -> None:
    """Keep work in progress on the server, so it survives a reload or another device."""
    with transaction.atomic():
        locked = _locked_open(assignment)
        _write(locked, states)
        locked.save(update_fields=["updated_at"])


def submit(assignment: Assignment, states: Mapping[int, ClaimState]) -> None:
    """Save the final states and hand the item in; every claim needs a label."""
    numbers = dict(ItemClaim.objects.filter(item_id=assignment.item_id).values_list("pk", "index"))
    missing = sorted(numbers[pk] + 1 for pk in numbers if not states.get(pk, ClaimState()).label)
    if missing:
        listed = ", ".join(str(n) for n in missing[:10]) + ("…" if len(missing) > 10 else "")
        raise LabelingError(
            f"{len(missing)} claim{'s' if len(missing) != 1 else ''} still need a label: {listed}."
        )
    with transaction.atomic():
        locked = _locked_open(assignment)
        _write(locked, {pk: states[pk] for pk in numbers})
        locked.status = Assignment.Status.SUBMITTED
        locked.submitted_at = timezone.now()
        locked.save(update_fields=["status", "submitted_at", "updated_at"])


def skip(assignment: Assignment) -> None:
    """Give the item back: its slot goes to someone else, and it is never offered again."""
    with transaction.atomic():
        locked = _locked_open(assignment)
        locked.labels.all().delete()
        locked.status = Assignment.Status.SKIPPED
        locked.slot = None
        locked.save(update_fields=["status", "slot", "updated_at"])


def states_of(assignment: Assignment) -> dict[int, ClaimState]:
    return {
        label.claim_id: ClaimState(label.label, tuple(label.cited_facts), label.note)
        for label in assignment.labels.all()
    }


# --- Progress ------------------------------------------------------------------------


@dataclass(frozen=True)
class Progress:
    done: int  # items this annotator has submitted
    open: int  # items still there for them, the one in progress included

    @property
    def total(self) -> int:
        return self.done + self.open

    @property
    def percent(self) -> int:
        return round(100 * self.done / self.total) if self.total else 100


def annotator_progress(project: LabelingProject, user: Any) -> Progress:
    mine = Assignment.objects.filter(item__project=project, annotator=user).aggregate(
        done=Count("pk", filter=Q(status=Assignment.Status.SUBMITTED)),
        in_progress=Count("pk", filter=Q(status=Assignment.Status.IN_PROGRESS)),
    )
    available = _open_items(project.pk, user, project.overlap).count()
    return Progress(mine["done"], mine["in_progress"] + available)


@dataclass(frozen=True)
class ProjectRow:
    project: LabelingProject
    items: int
    submitted: int  # labels handed in, all annotators
    mine: Progress | None  # this user's queue, where they are an annotator

    @property
    def needed(self) -> int:
        return self.items * self.project.overlap


def project_rows(user: Any) -> list[ProjectRow]:
    """The projects a user sees, with the team's progress and the user's own queue."""
    submitted = Q(items__assignments__status=Assignment.Status.SUBMITTED)
    projects = visible_projects(user).annotate(
        item_count=Count("items", distinct=True),
        submitted=Count("items__assignments", filter=submitted, distinct=True),
    )
    assigned = set(user.labeling_projects.values_list("pk", flat=True))
    return [
        ProjectRow(
            p,
            p.item_count,
            p.submitted,
            annotator_progress(p, user) if p.pk in assigned else None,
        )
        for p in projects
    ]


@dataclass(frozen=True)
class AnnotatorRow:
    username: str
    submitted: int
    in_progress: int
    skipped: int
    assigned: bool


@dataclass(frozen=True)
class ProjectSummary:
    items: int
    claims: int
    slots: int  # items x k: the labels the project needs
    submitted: int
    in_progress: int
    complete_items: int
    annotators: tuple[AnnotatorRow, ...]

    @property
    def percent(self) -> int:
        return min(100, round(100 * self.submitted / self.slots)) if self.slots else 0


def project_summary(project: LabelingProject) -> ProjectSummary:
    items = Item.objects.filter(project=project)
    submitted = Count("assignments", filter=Q(assignments__status=Assignment.Status.SUBMITTED))
    complete = items.annotate(done=submitted).filter(done__gte=project.overlap).count()
    by_status: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for username, status, count in (
        Assignment.objects.filter(item__project=project)
        .values_list("annotator__username", "status")
        .annotate(n=Count("pk"))
    ):
        by_status[username][status] = count
    assigned = set(project.annotators.values_list("username", flat=True))
    rows = tuple(
        AnnotatorRow(
            username,
            by_status[username][Assignment.Status.SUBMITTED],
            by_status[username][Assignment.Status.IN_PROGRESS],
            by_status[username][Assignment.Status.SKIPPED],
            username in assigned,
        )
        for username in sorted(assigned | set(by_status))
    )
    count = items.count()
    return ProjectSummary(
        items=count,
        claims=ItemClaim.objects.filter(item__project=project).count(),
        slots=count * project.overlap,
        submitted=sum(r.submitted for r in rows),
        in_progress=sum(r.in_progress for r in rows),
        complete_items=complete,
        annotators=rows,
    )


# --- The labeling page -------------------------------------------------------------


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
