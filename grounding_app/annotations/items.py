"""Building projects: items from JSONL uploads and saved reviews, checked by the engine
outside any transaction and stored all or nothing."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Max

from grounding_app.active_verifier.checker import checker
from grounding_app.annotations.access import LabelingError
from grounding_app.annotations.locking import lock_project
from grounding_app.annotations.models import (
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
from grounding_app.reviews.models import Review
from grounding_app.reviews.services import stored_request

PROGRESS_EVERY = 10  # items checked between two progress writes of an import job


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
        lock_project(project)
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
                llm_fallback=(claim.llm_judge or "")[:200],
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
