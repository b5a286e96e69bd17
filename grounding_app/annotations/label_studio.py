"""Label Studio annotations back into a project's labels, never overwriting any.

The tasks were written by `exports.label_studio_tasks`; each carries our reference
(project, item, the claims' byte spans) in its data, and that is how a task finds its
item. A task is refused, and said so, when it is not from this project, when its item
is gone, or when its answer or claims differ from the item's now.

Each annotation becomes one annotator's submitted labels, exactly as submitting the
labeling page stores them (`submit`): one label per claim, the facts it cites
(indices from 0) and a note. Its author is matched to a user here by the mapping given
with the upload (`3 = ann` or `ann@example.org = ann`), else by the email Label
Studio exports with the annotation (a user with that email, or that username); either
way only one of the project's annotators, else the annotation is refused. An
annotation is stored only whole, and only where nothing is there yet: where its
annotator already submitted the same labels it counts as unchanged; other labels,
a draft or a skip here are a conflict, reported and left as they are. So is an
annotation that would give an item more than the project's k annotators.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Q

from grounding_app.annotations.forms import MAX_NOTE_CHARS
from grounding_app.annotations.labels import ClaimState, states_of, submit
from grounding_app.annotations.models import Assignment, Item, ItemClaim, LabelingProject
from grounding_app.common.numbers import plain_number
from grounding_app.formats import label_studio as ls
from grounding_app.formats.check_grounding import FormatError

MAX_REPORTED = 200
PROGRESS_EVERY = 50  # tasks between two progress writes of an import job


class LabelStudioFileError(ValueError):
    """The upload is not a Label Studio JSON export at all."""


@dataclass
class ImportReport:
    imported: int = 0  # annotations stored as submitted labels
    unchanged: int = 0  # annotations whose labels were here already
    problems: list[str] = field(default_factory=list)  # what was not imported, and why

    def add(self, problem: str) -> None:
        if len(self.problems) < MAX_REPORTED:
            self.problems.append(problem)
        elif len(self.problems) == MAX_REPORTED:
            self.problems.append("… and more: fix these and import again.")


class _Users:
    """Label Studio annotators to the project's annotators, looked up once each: labels
    are stored as someone who may label the project, never as just any user."""

    def __init__(self, project: LabelingProject, mapping: Mapping[str, str]) -> None:
        self.mapping = mapping
        self.annotators = project.annotators.all()
        self.found: dict[ls.Annotator, Any] = {}

    def user(self, who: ls.Annotator) -> tuple[Any, str]:
        """(user, "") or (None, why not)."""
        if who in self.found:
            return self.found[who], ""
        users = get_user_model().objects
        key = who.email.casefold() if who.email and who.email.casefold() in self.mapping else None
        key = key or (who.id.casefold() if who.id.casefold() in self.mapping else None)
        if key is not None:
            name = self.mapping[key]
            line = f"the mapping line “{key} = {name}”"
            user = users.filter(username=name).first()
            if user is None:
                return None, f"{line} names {name!r}, who is no user here"
            if not self.annotators.filter(pk=user.pk).exists():
                return None, (
                    f"{line} names {name!r}, who is not an annotator of this project; "
                    "nothing of theirs imported"
                )
        elif who.email:
            matches = list(users.filter(Q(email__iexact=who.email) | Q(username__iexact=who.email)))
            if len(matches) != 1:
                why = "no user here has" if not matches else "several users here have"
                return None, f"{why} the email {who.email!r}; map it to a username"
            user = matches[0]
            if not self.annotators.filter(pk=user.pk).exists():
                return None, (
                    f"the email {who.email!r} is {user.username}'s, who is not an annotator "
                    "of this project; nothing of theirs imported"
                )
        else:
            return None, f"map Label Studio user {who.id} to a username (“{who.id} = name”)"
        self.found[who] = user
        return user, ""


def _label_keys(project: LabelingProject) -> dict[str, str]:
    """Label Studio label values (names, or keys) to the project's label keys."""
    keys: dict[str, str] = {}
    for label in project.labels:
        keys[label.key.casefold()] = label.key
        keys[label.name.casefold()] = label.key
    return keys


def _core(data: bytes, start: int, end: int) -> tuple[int, int]:
    """A byte span without the white space at its ends: a region an annotator drew again
    over a claim, taking or leaving the space after it, is still that claim."""
    part = data[start:end]
    return start + len(part) - len(part.lstrip()), start + len(part.rstrip())


def _states(
    annotation: ls.Annotation,
    item: Item,
    claims: list[ItemClaim],
    keys: Mapping[str, str],
) -> tuple[dict[int, ClaimState], str]:
    """The annotation as the labeling page's claim states, or ({}, why it cannot be)."""
    data = item.answer.encode("utf-8")
    by_span = {(claim.start, claim.end): claim for claim in claims}
    by_core = {_core(data, claim.start, claim.end): claim for claim in claims}
    states: dict[int, ClaimState] = {}
    for region in annotation.regions:
        span = ls.byte_span(item.answer, region.start, region.end, region.text)
        claim = (by_span.get(span) or by_core.get(_core(data, *span))) if span else None
        if claim is None:
            return {}, (
                f"its span at characters {region.start}-{region.end} "
                f"({(region.text or '')[:40]!r}) is not one of the item's claims"
            )
        number = claim.index + 1
        if claim.pk in states:
            return {}, f"claim {number} is marked twice"
        if len(region.labels) != 1:
            return {}, f"claim {number} has {len(region.labels)} labels; one is needed"
        key = keys.get(region.labels[0].casefold())
        if key is None:
            if region.labels[0].startswith(ls.UNLABELED):
                return {}, f"claim {number} is still “{region.labels[0]}”"
            return {}, f"claim {number}: {region.labels[0]!r} is not a label of this project"
        cited = set()
        for value in region.cited:
            fact = plain_number(value)  # not int(): 5,000 digits raised past its digit limit
            if fact is None or not 1 <= fact <= len(item.facts):
                return {}, f"claim {number} cites {value[:20]!r}, which is no fact of the item"
            cited.add(fact - 1)
        note = region.note.replace("\r\n", "\n")
        if len(note) > MAX_NOTE_CHARS or "\x00" in note:
            return {}, f"claim {number}'s note is over {MAX_NOTE_CHARS} characters or holds NUL"
        states[claim.pk] = ClaimState(key, tuple(sorted(cited)), note)
    missing = [claim.index + 1 for claim in claims if claim.pk not in states]
    if missing:
        listed = ", ".join(map(str, missing[:10])) + ("…" if len(missing) > 10 else "")
        return {}, f"claims {listed} have no label"
    return states, ""


def _differences(
    saved: Mapping[int, ClaimState], states: Mapping[int, ClaimState], claims: list[ItemClaim]
) -> str:
    numbers = [claim.index + 1 for claim in claims if saved.get(claim.pk) != states[claim.pk]]
    return ", ".join(map(str, numbers[:10])) + ("…" if len(numbers) > 10 else "")


def _store(
    project: LabelingProject, item: Item, user: Any, states: dict[int, ClaimState], by: Any
) -> str:
    """ "" when stored (the assignment noting who imported it), "unchanged" when already
    here, else the conflict."""
    with transaction.atomic():
        overlap = (
            LabelingProject.objects.select_for_update()
            .filter(pk=project.pk)
            .values_list("overlap", flat=True)
            .first()
        )
        assignment = Assignment.objects.filter(item=item, annotator=user).first()
        claims = list(ItemClaim.objects.filter(item=item).order_by("index"))
        if assignment is not None:
            saved = states_of(assignment)
            if assignment.status == Assignment.Status.SUBMITTED:
                if saved == states:
                    return "unchanged"
                return (
                    f"{user.username} already submitted other labels here "
                    f"(claims {_differences(saved, states, claims)}); kept those"
                )
            if assignment.status == Assignment.Status.SKIPPED:
                return f"{user.username} skipped this item here; nothing stored"
            if saved:
                return f"{user.username} has a draft of this item here; finish or skip it first"
        else:
            used = set(
                Assignment.objects.filter(item=item, slot__isnull=False).values_list(
                    "slot", flat=True
                )
            )
            free = [slot for slot in range(overlap or 0) if slot not in used]
            if not free:
                return f"the item already has its {overlap} annotators (k)"
            assignment = Assignment.objects.create(item=item, annotator=user, slot=free[0])
        submit(assignment, states)
        Assignment.objects.filter(pk=assignment.pk).update(imported_by=by)
    return ""


def _item_for(project: LabelingProject, task: ls.Task) -> tuple[Item | None, str]:
    ref = task.ref or {}
    if ref.get("project") != project.pk or not isinstance(ref.get("item"), int):
        return None, "not a task exported from this project; nothing imported"
    item = Item.objects.filter(project=project, pk=ref["item"]).first()
    if item is None:
        return None, f"item {ref.get('id', ref['item'])} is no longer in the project"
    if task.answer != item.answer:
        return None, f"its answer differs from item {item.export_id}'s; the task was changed"
    spans = [(c.index, c.start, c.end) for c in ItemClaim.objects.filter(item=item)]
    exported = ref.get("claims")
    listed = (
        [(c.get("index"), c.get("start"), c.get("end")) for c in exported if isinstance(c, dict)]
        if isinstance(exported, list)
        else None
    )
    if listed != sorted(spans):
        return None, f"item {item.export_id}'s claims changed since the export"
    return item, ""


def import_annotations(
    project: LabelingProject,
    raw: str | bytes,
    mapping: Mapping[str, str] | None = None,
    progress: Callable[[int, int], None] | None = None,
    by: Any = None,
) -> ImportReport:
    """Store the annotations of a Label Studio JSON export as submitted labels, imported
    `by` that user; `progress(done, total)` hears of every PROGRESS_EVERY tasks read."""
    try:
        tasks = ls.read_export(raw)
    except FormatError as exc:
        where = f"{exc.field}: " if exc.field else ""
        raise LabelStudioFileError(f"not a Label Studio JSON export: {where}{exc.message}") from exc
    report = ImportReport()
    users = _Users(project, mapping or {})
    keys = _label_keys(project)
    for done, task in enumerate(tasks):
        if progress is not None and done % PROGRESS_EVERY == 0:
            progress(done, len(tasks))
        if not task.annotations:
            continue
        item, why = _item_for(project, task)
        if item is None:
            report.add(f"{task.name}: {why}.")
            continue
        claims = list(ItemClaim.objects.filter(item=item).order_by("index"))
        for number, annotation in enumerate(task.annotations, start=1):
            where = f"{task.name}, annotation {number} by {annotation.annotator}"
            if annotation.cancelled:
                report.add(f"{where}: skipped in Label Studio; nothing imported.")
                continue
            if annotation.problems:
                report.add(f"{where}: {annotation.problems[0]}")
                continue
            user, why = users.user(annotation.annotator)
            if user is None:
                report.add(f"{where}: {why}.")
                continue
            states, why = _states(annotation, item, claims, keys)
            outcome = _store(project, item, user, states, by) if states else why
            if outcome == "unchanged":
                report.unchanged += 1
            elif outcome:
                report.add(f"{where}: {outcome}.")
            else:
                report.imported += 1
    return report
