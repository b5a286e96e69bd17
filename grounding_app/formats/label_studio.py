"""Label Studio tasks out and its annotation export back in (no Django).

Out: one task per item. Its `data` holds the answer (`answer`, shown by a `Text` tag),
the facts as numbered text (`facts`), the fact numbers to cite (`fact_choices`, for a
`Choices` tag with dynamic options) and `grounding`, our reference: project, item and
the claims' spans, which is how an annotation finds its item again. Its one
prediction, `model_version` `grounding-engine`, marks every claim as a span of a
`Labels` tag with the engine's verdict as its label (a `labels` result:
`from_name` `label`, `to_name` `answer`, `value` `{start, end, text, labels}`) and the
claim's score. A claim without a verdict to show (blind projects, claims the engine
could not check) gets the extra label `To label`, which an annotator must change.

Offsets: ours are UTF-8 bytes (SPEC §1); Label Studio's are characters of the shown
text, counted as code points, which Python's string indices are. An emoji is one
character there and four bytes here; a Hebrew letter one character and two bytes.
Label Studio before its emoji fix (2021) counted JavaScript's UTF-16 units, so on the
way in an offset pair is read as code points, and as UTF-16 units only when the
region's own text says that is what it meant.

In: Label Studio's JSON export, a list of tasks with their `annotations`, each with
`completed_by` (a user id, or an object with `id` and `email`), `was_cancelled` and
`result`, whose entries sharing an `id` are one region: its `labels`, the facts it
cites (`choices` of `cited_facts`, numbers from 1) and a note (`textarea` `note`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from xml.sax.saxutils import quoteattr

from grounding_app.engine import byte_prefix, char_index, utf8_len
from grounding_app.formats._reader import fail
from grounding_app.formats.check_grounding import json_type
from grounding_app.formats.imports import decode_import

LABEL = "label"  # the Labels tag: one verdict per claim span
ANSWER = "answer"  # the Text tag showing the answer
CITED = "cited_facts"  # per-region Choices: the facts that support the claim
NOTE = "note"  # per-region TextArea
FACTS = "facts"
MODEL_VERSION = "grounding-engine"
UNLABELED = "To label"
REF = "grounding"  # the key of our reference in a task's data

_CREATED_EMAIL = re.compile(r"^\s*([^,\s]+@[^,\s]+)\s*,")


# --- out ---------------------------------------------------------------------------


@dataclass(frozen=True)
class TaskClaim:
    index: int
    start: int  # UTF-8 byte offsets into the answer, end exclusive
    end: int
    text: str
    label: str  # the shown name of the engine's verdict; "" when there is none to show
    score: float | None


def unlabeled_name(names: Sequence[str]) -> str:
    """The marker label's name, never one of the project's own."""
    taken = {name.casefold() for name in names}
    name = UNLABELED
    while name.casefold() in taken:
        name += " *"
    return name


def labeling_config(label_names: Sequence[str], marker: bool = True) -> str:
    """The labeling interface to paste into a Label Studio project (Settings, Labeling
    Interface, Code): the answer with one label per claim, the facts, and per claim the
    facts it cites and a note. The marker label is offered only where the tasks' claims
    carry it (`marker`): otherwise it is a choice the project does not have."""
    names = [*label_names, unlabeled_name(label_names)] if marker else list(label_names)
    labels = "\n".join(f"    <Label value={quoteattr(name)}/>" for name in names)
    return f"""<View>
  <Header value="Answer: label every marked claim"/>
  <Labels name="{LABEL}" toName="{ANSWER}" choice="single" showInline="true">
{labels}
  </Labels>
  <Text name="{ANSWER}" value="${ANSWER}" granularity="symbol"/>
  <Header value="Facts"/>
  <Text name="{FACTS}" value="${FACTS}"/>
  <View visibleWhen="region-selected">
    <Header value="Facts that support the selected claim"/>
    <Choices name="{CITED}" toName="{ANSWER}" perRegion="true" choice="multiple"
             value="$fact_choices"/>
    <Header value="Note"/>
    <TextArea name="{NOTE}" toName="{ANSWER}" perRegion="true" maxSubmissions="1" rows="2"/>
  </View>
</View>
"""


def facts_text(facts: Sequence[Mapping[str, Any]]) -> str:
    """The facts as Label Studio shows them: numbered, each with its attributes."""
    blocks = []
    for number, fact in enumerate(facts, start=1):
        attributes = fact.get("attributes") or {}
        tail = "".join(f"\n  {key}: {value}" for key, value in attributes.items())
        blocks.append(f"[{number}] {fact.get('text', '')}{tail}")
    return "\n\n".join(blocks)


def task(
    ref: Mapping[str, Any],
    answer: str,
    facts: Sequence[Mapping[str, Any]],
    claims: Sequence[TaskClaim],
    unlabeled: str = UNLABELED,
) -> dict[str, Any]:
    """One Label Studio task: data with our reference, and the engine's prediction."""
    prefix = byte_prefix(answer)
    result = []
    scores = []
    for claim in claims:
        start = char_index(answer, claim.start, prefix)
        end = char_index(answer, claim.end, prefix)
        region: dict[str, Any] = {
            "id": f"claim-{claim.index + 1}",
            "from_name": LABEL,
            "to_name": ANSWER,
            "type": "labels",
            "value": {
                "start": start,
                "end": end,
                "text": answer[start:end],
                "labels": [claim.label or unlabeled],
            },
        }
        if claim.label and claim.score is not None:
            region["score"] = claim.score
            scores.append(claim.score)
        result.append(region)
    prediction: dict[str, Any] = {"model_version": MODEL_VERSION, "result": result}
    if scores:
        prediction["score"] = sum(scores) / len(scores)
    return {
        "data": {
            ANSWER: answer,
            FACTS: facts_text(facts),
            "fact_choices": [{"value": str(n)} for n in range(1, len(facts) + 1)],
            REF: {
                **ref,
                "claims": [{"index": c.index, "start": c.start, "end": c.end} for c in claims],
            },
        },
        "predictions": [prediction],
    }


# --- offsets -----------------------------------------------------------------------


def _utf16_to_index(text: str, units: int) -> int | None:
    """The string index at `units` UTF-16 code units, or None inside a pair or past the end."""
    at = 0
    for index, char in enumerate(text):
        if at == units:
            return index
        at += 2 if ord(char) > 0xFFFF else 1
        if at > units:
            return None
    return len(text) if at == units else None


def byte_span(answer: str, start: int, end: int, text: str | None) -> tuple[int, int] | None:
    """A Label Studio character span as UTF-8 byte offsets into the answer, or None when
    it is not a span of it (see the module docstring for the two counts tried)."""
    candidates = [(start, end)]
    if text is not None:
        s16, e16 = _utf16_to_index(answer, start), _utf16_to_index(answer, end)
        if s16 is not None and e16 is not None:
            candidates.append((s16, e16))
    for s, e in candidates:
        if 0 <= s <= e <= len(answer) and (text is None or answer[s:e] == text):
            return utf8_len(answer[:s]), utf8_len(answer[:e])
    return None


# --- in ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Annotator:
    """Who made an annotation in Label Studio: its user id, and an email where known."""

    id: str
    email: str

    def __str__(self) -> str:
        return self.email or f"Label Studio user {self.id}"


@dataclass(frozen=True)
class Region:
    start: int  # characters of the answer, as Label Studio counts them
    end: int
    text: str | None
    labels: tuple[str, ...]
    cited: tuple[str, ...] = ()
    note: str = ""


@dataclass(frozen=True)
class Annotation:
    annotator: Annotator
    cancelled: bool
    regions: tuple[Region, ...]
    problems: tuple[str, ...] = ()  # results that could not be read


@dataclass(frozen=True)
class Task:
    number: int  # its place in the export, from 1
    ls_id: str  # Label Studio's task id, for messages
    ref: dict[str, Any] | None
    answer: str | None
    annotations: tuple[Annotation, ...] = field(default_factory=tuple)

    @property
    def name(self) -> str:
        return f"task {self.ls_id}" if self.ls_id else f"task {self.number} of the file"


def _annotator(data: dict[str, Any]) -> Annotator:
    who = data.get("completed_by")
    if isinstance(who, dict):
        email = who.get("email")
        return Annotator(str(who.get("id", "")), email if isinstance(email, str) else "")
    created = data.get("created_username")
    match = _CREATED_EMAIL.match(created) if isinstance(created, str) else None
    return Annotator("" if who is None else str(who), match.group(1) if match else "")


def _strings(value: object) -> tuple[str, ...]:
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    return ()


def _annotation(path: str, data: dict[str, Any]) -> Annotation:
    """Regions by result id: the labels result gives the span, choices and textarea
    results of the same id the cited facts and the note."""
    results = data.get("result") or []
    if not isinstance(results, list):
        fail(f"{path}.result", f"expected a list, got {json_type(results)}.")
    spans: dict[str, dict[str, Any]] = {}
    extras: dict[str, dict[str, Any]] = {}
    problems = []
    for n, result in enumerate(results):
        if not isinstance(result, dict) or not isinstance(result.get("value"), dict):
            problems.append(f"{path}.result[{n}]: expected an object with a value.")
            continue
        value = result["value"]
        key = str(result.get("id") or f"{value.get('start')}:{value.get('end')}")
        name = result.get("from_name")
        if name == LABEL:
            start, end = value.get("start"), value.get("end")
            if not (isinstance(start, int) and isinstance(end, int)):
                problems.append(f"{path}.result[{n}]: a label without start and end.")
                continue
            if key in spans:
                problems.append(f"{path}.result[{n}]: region {key!r} appears twice.")
                continue
            text = value.get("text")
            spans[key] = {
                "start": start,
                "end": end,
                "text": text if isinstance(text, str) else None,
                "labels": _strings(value.get("labels")),
            }
        elif name == CITED:
            extras.setdefault(key, {})["cited"] = _strings(value.get("choices"))
        elif name == NOTE:
            extras.setdefault(key, {})["note"] = "\n".join(_strings(value.get("text")))
    for key in extras.keys() - spans.keys():
        problems.append(f"{path}: facts or a note for region {key!r}, which has no label.")
    regions = tuple(
        Region(
            span["start"],
            span["end"],
            span["text"],
            span["labels"],
            extras.get(key, {}).get("cited", ()),
            extras.get(key, {}).get("note", ""),
        )
        for key, span in spans.items()
    )
    return Annotation(_annotator(data), data.get("was_cancelled") is True, regions, tuple(problems))


def read_export(raw: str | bytes) -> list[Task]:
    """The tasks of a Label Studio JSON export; raises ImportFormatError on a file that
    is not one (a task or annotation of the wrong shape is an error of the file)."""
    data = decode_import(raw)
    if not isinstance(data, list):
        fail("", f"a Label Studio JSON export is an array of tasks, got {json_type(data)}.")
    tasks = []
    for n, entry in enumerate(data):
        path = f"[{n}]"
        if not isinstance(entry, dict):
            fail(path, f"expected a task object, got {json_type(entry)}.")
        task_data = entry.get("data")
        if not isinstance(task_data, dict):
            fail(f"{path}.data", "a task needs its data object.")
        ref = task_data.get(REF)
        answer = task_data.get(ANSWER)
        key = "annotations" if "annotations" in entry else "completions"  # before LS 1.0
        annotations = entry.get(key)
        annotations = [] if annotations is None else annotations
        if not isinstance(annotations, list):
            fail(f"{path}.{key}", f"expected a list, got {json_type(annotations)}.")
        read = []
        for m, annotation in enumerate(annotations):
            if not isinstance(annotation, dict):
                fail(f"{path}.annotations[{m}]", "expected an annotation object.")
            read.append(_annotation(f"{path}.annotations[{m}]", annotation))
        task_id = entry.get("id")
        tasks.append(
            Task(
                n + 1,
                str(task_id) if isinstance(task_id, int | str) else "",
                ref if isinstance(ref, dict) else None,
                answer if isinstance(answer, str) else None,
                tuple(read),
            )
        )
    return tasks
