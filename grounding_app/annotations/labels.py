"""Keeping an annotator's labels: drafts, submit and skip, each under the assignment's row
lock so a submitted or skipped item never changes again."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from grounding_app.annotations.access import LabelingError
from grounding_app.annotations.locking import locked_open
from grounding_app.annotations.models import (
    Assignment,
    ClaimLabel,
    ItemClaim,
)


@dataclass(frozen=True)
class ClaimState:
    label: str = ""
    cited: tuple[int, ...] = ()
    note: str = ""


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
        locked = locked_open(assignment)
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
        locked = locked_open(assignment)
        _write(locked, {pk: states[pk] for pk in numbers})
        locked.status = Assignment.Status.SUBMITTED
        locked.submitted_at = timezone.now()
        locked.save(update_fields=["status", "submitted_at", "updated_at"])


def skip(assignment: Assignment) -> None:
    """Give the item back: its slot goes to someone else, and it is never offered again."""
    with transaction.atomic():
        locked = locked_open(assignment)
        locked.labels.all().delete()
        locked.status = Assignment.Status.SKIPPED
        locked.slot = None
        locked.save(update_fields=["status", "slot", "updated_at"])


def states_of(assignment: Assignment) -> dict[int, ClaimState]:
    return {
        label.claim_id: ClaimState(label.label, tuple(label.cited_facts), label.note)
        for label in assignment.labels.all()
    }
