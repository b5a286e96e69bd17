"""A project's labels as JSONL (every detail), CSV (one row per label), training lines,
or Label Studio tasks.

`grounding_lines` writes the shared grounding schema (`{id, source, facts, claim,
label, meta}`), one line per claim, so `manage.py grounding_eval` and the verifier
trainer read an export as they read `shared/data/grounding`. A claim's label there is
its final label (adjudicated, else the majority of submitted labels) mapped by
`labelset.grounding_label`: supported is 1, any other label 0; claims labeled "no check
needed", tied or unlabeled are left out. The claim is written alone, as the schema
has no context field; the answer before it is in `meta.context`.

`label_studio_tasks` writes one Label Studio task per item, with the engine's verdicts
as a prediction (`formats.label_studio`), and `label_studio_config` the labeling
interface those tasks need; `annotations.label_studio` reads the annotations back.

Only submitted labels are exported: drafts are work in progress. Everything streams in
batches of items, so a large project never sits in memory at once.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from grounding_app.annotations.agreement import final_label
from grounding_app.annotations.labelset import grounding_label
from grounding_app.annotations.models import (
    Assignment,
    ClaimLabel,
    Item,
    ItemClaim,
    LabelingProject,
)
from grounding_app.annotations.stats import majority
from grounding_app.engine import byte_prefix, char_index
from grounding_app.formats import label_studio
from grounding_app.formats.csv_cells import csv_line

BATCH = 200

CSV_COLUMNS = (
    "project",
    "item_id",
    "claim_index",
    "start",
    "end",
    "claim",
    "check_required",
    "model_verdict",
    "model_score",
    "model_cited_facts",
    "annotator",
    "label",
    "cited_facts",
    "note",
    "majority",
    "adjudicated",
    "final",
)


@dataclass(frozen=True)
class LabelOut:
    annotator: str
    label: str
    cited_facts: list[int]
    note: str
    submitted_at: str


@dataclass(frozen=True)
class ClaimOut:
    claim: ItemClaim
    labels: list[LabelOut]
    majority: str | None
    final: str | None


def _batches(project: LabelingProject) -> Iterator[list[tuple[Item, list[ClaimOut]]]]:
    items = Item.objects.filter(project=project).select_related("review").order_by("position")
    last = -1
    while True:
        batch = list(items.filter(position__gt=last)[:BATCH])
        if not batch:
            return
        last = batch[-1].position
        labels: dict[int, list[LabelOut]] = defaultdict(list)
        for claim_id, username, label, cited, note, submitted in (
            ClaimLabel.objects.filter(
                claim__item__in=batch, assignment__status=Assignment.Status.SUBMITTED
            )
            .exclude(label="")
            .order_by("assignment__annotator__username")
            .values_list(
                "claim_id",
                "assignment__annotator__username",
                "label",
                "cited_facts",
                "note",
                "assignment__submitted_at",
            )
        ):
            labels[claim_id].append(
                LabelOut(
                    username, label, list(cited), note, submitted.isoformat() if submitted else ""
                )
            )
        claims: dict[int, list[ClaimOut]] = defaultdict(list)
        for claim in ItemClaim.objects.filter(item__in=batch).order_by("item_id", "index"):
            given = labels[claim.pk]
            values = [label.label for label in given]
            claims[claim.item_id].append(
                ClaimOut(claim, given, majority(values), final_label(claim, values))
            )
        yield [(item, claims[item.pk]) for item in batch]


def _json_line(data: dict[str, Any]) -> str:
    return json.dumps(data, ensure_ascii=False) + "\n"


def item_lines(project: LabelingProject) -> Iterator[str]:
    """One JSON object per item: answer, facts, claims with byte spans, model, every label."""
    for batch in _batches(project):
        for item, claims in batch:
            yield _json_line(
                {
                    "id": item.export_id,
                    "project": project.name,
                    "source": item.source,
                    "answer": item.answer,
                    "facts": item.facts,
                    "meta": item.meta,
                    "review": str(item.review.public_id) if item.review else None,
                    "claims": [
                        {
                            "index": out.claim.index,
                            "start": out.claim.start,
                            "end": out.claim.end,
                            "text": out.claim.text,
                            "check_required": out.claim.check_required,
                            "model": {
                                "verdict": out.claim.model_verdict,
                                "score": out.claim.model_score,
                                "cited_facts": out.claim.model_cited_facts,
                                # what judged it ("" before the engine said)
                                "language": out.claim.language,
                                "checked_by": out.claim.checked_by,
                            },
                            "labels": [
                                {
                                    "annotator": label.annotator,
                                    "label": label.label,
                                    "cited_facts": label.cited_facts,
                                    "note": label.note,
                                    "submitted_at": label.submitted_at,
                                }
                                for label in out.labels
                            ],
                            "majority": out.majority,
                            "adjudicated": out.claim.adjudicated_label or None,
                            "final": out.final,
                        }
                        for out in claims
                    ],
                }
            )


def grounding_lines(project: LabelingProject) -> Iterator[str]:
    """One shared-schema line per claim whose final label maps to 1 or 0."""
    for batch in _batches(project):
        for item, claims in batch:
            prefix = byte_prefix(item.answer)
            for out in claims:
                label = grounding_label(out.final or "")
                if label is None:
                    continue
                context = item.answer[: char_index(item.answer, out.claim.start, prefix)]
                yield _json_line(
                    {
                        "id": f"{item.export_id}#{out.claim.index + 1}",
                        "source": item.source or "annotations",
                        "facts": item.facts,
                        "claim": out.claim.text,
                        "label": label,
                        "meta": {
                            "project": project.name,
                            "item": item.export_id,
                            "claim_index": out.claim.index,
                            "start": out.claim.start,
                            "end": out.claim.end,
                            "context": context.rstrip(),
                            "human_label": out.final,
                            "adjudicated": bool(out.claim.adjudicated_label),
                            "annotators": len(out.labels),
                            "model_score": out.claim.model_score,
                        },
                    }
                )


def csv_lines(project: LabelingProject) -> Iterator[str]:
    """One row per submitted label (a claim without labels gets one row without them).

    Cells that a spreadsheet would run as a formula are prefixed with an apostrophe; the
    JSONL export is the faithful copy.
    """
    yield csv_line(CSV_COLUMNS)
    for batch in _batches(project):
        for item, claims in batch:
            for out in claims:
                claim = out.claim
                common = [
                    project.name,
                    item.export_id,
                    claim.index,
                    claim.start,
                    claim.end,
                    claim.text,
                    claim.check_required,
                    claim.model_verdict,
                    "" if claim.model_score is None else f"{claim.model_score:.6f}",
                    " ".join(str(f) for f in claim.model_cited_facts),
                ]
                tail = [out.majority, claim.adjudicated_label, out.final]
                rows = [
                    [
                        label.annotator,
                        label.label,
                        " ".join(map(str, label.cited_facts)),
                        label.note,
                    ]
                    for label in out.labels
                ] or [["", "", "", ""]]
                for row in rows:
                    yield csv_line(common + row + tail)


def label_studio_config(project: LabelingProject) -> str:
    """The Label Studio labeling interface for this project's labels, with the marker
    label where some task's claim carries it (blind, or a verdict that is no label)."""
    marked = project.blind or (
        ItemClaim.objects.filter(item__project=project)
        .exclude(model_verdict__in=project.label_keys)
        .exists()
    )
    return label_studio.labeling_config([label.name for label in project.labels], marked)


def label_studio_tasks(project: LabelingProject) -> Iterator[str]:
    """A JSON array of Label Studio tasks, one per item, streamed.

    Each prediction shows the engine's verdict per claim, as the labeling page does;
    in a blind project, and for a claim the engine could not check, it is the marker
    label instead, which an annotator must replace.
    """
    names = [label.name for label in project.labels]
    unlabeled = label_studio.unlabeled_name(names)
    first = True
    yield "["
    for batch in _batches(project):
        for item, claims in batch:
            task_claims = [
                label_studio.TaskClaim(
                    out.claim.index,
                    out.claim.start,
                    out.claim.end,
                    out.claim.text,
                    ""
                    if project.blind or out.claim.model_verdict not in project.label_keys
                    else project.label_name(out.claim.model_verdict),
                    out.claim.model_score,
                )
                for out in claims
            ]
            ref = {"project": project.pk, "item": item.pk, "id": item.export_id}
            task = label_studio.task(ref, item.answer, item.facts, task_claims, unlabeled)
            yield ("\n" if first else ",\n") + json.dumps(task, ensure_ascii=False)
            first = False
    yield "\n]\n"
