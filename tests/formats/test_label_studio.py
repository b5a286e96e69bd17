"""Label Studio tasks and exports: character offsets both ways (emoji, Hebrew), the
labeling interface, and annotation exports read region by region."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from grounding_app.engine import utf8_len
from grounding_app.formats._reader import ImportFormatError
from grounding_app.formats.label_studio import (
    Annotator,
    Region,
    TaskClaim,
    byte_span,
    labeling_config,
    read_export,
    task,
    unlabeled_name,
)

# one emoji (1 character, 2 UTF-16 units, 4 bytes), Hebrew (1 character, 2 bytes each)
ANSWER = "Go 🚀 now. שלום עולם. Done."


def _claims(answer: str, sentences: list[str]) -> list[TaskClaim]:
    claims, at = [], 0
    for n, sentence in enumerate(sentences):
        start = answer.index(sentence, at)
        at = start + len(sentence)
        claims.append(
            TaskClaim(
                n, utf8_len(answer[:start]), utf8_len(answer[:at]), sentence, "Supported", 0.9
            )
        )
    return claims


def test_task_offsets_are_characters_of_the_shown_text() -> None:
    claims = _claims(ANSWER, ["Go 🚀 now.", "שלום עולם.", "Done."])
    assert [(c.start, c.end) for c in claims] == [(0, 12), (13, 31), (32, 37)]  # bytes
    out = task({"project": 1, "item": 2}, ANSWER, [{"text": "f", "attributes": {}}], claims)
    values = [r["value"] for r in out["predictions"][0]["result"]]
    assert [(v["start"], v["end"]) for v in values] == [(0, 9), (10, 20), (21, 26)]
    for value in values:
        assert ANSWER[value["start"] : value["end"]] == value["text"]
    assert out["data"]["grounding"]["claims"][1] == {"index": 1, "start": 13, "end": 31}
    assert out["data"]["fact_choices"] == [{"value": "1"}]
    json.dumps(out)  # plain JSON


def test_a_claim_without_a_verdict_to_show_gets_the_marker_label_and_no_score() -> None:
    claim = TaskClaim(0, 0, 5, "Done.", "", 0.4)
    result = task({}, "Done.", [], [claim])["predictions"][0]
    assert result["result"][0]["value"]["labels"] == ["To label"]
    assert "score" not in result["result"][0] and "score" not in result


@pytest.mark.parametrize(
    ("start", "end", "text", "expected"),
    [
        (3, 4, "🚀", (3, 7)),  # code points, as Label Studio counts now
        (10, 20, "שלום עולם.", (13, 31)),
        (10, 20, None, (13, 31)),  # no text to check: read as code points
        (11, 21, "שלום עולם.", (13, 31)),  # UTF-16 units (Label Studio before 2021)
        (3, 5, "🚀", (3, 7)),  # UTF-16: the emoji is two units
        (10, 20, "something else", None),
        (0, 99, None, None),
        (5, 3, None, None),
    ],
)
def test_byte_span(start: int, end: int, text: str | None, expected: object) -> None:
    assert byte_span(ANSWER, start, end, text) == expected


def test_the_labeling_config_is_xml_with_every_label_and_the_marker() -> None:
    xml = labeling_config(["Supported", "Unsupported", "No check needed", 'Half "true" <&>'])
    root = ET.fromstring(xml)
    labels = root.find("Labels")
    assert labels is not None and labels.get("name") == "label" and labels.get("toName") == "answer"
    assert [label.get("value") for label in labels] == [
        "Supported",
        "Unsupported",
        "No check needed",
        'Half "true" <&>',
        "To label",
    ]
    per_region = [e for e in root.iter() if e.get("perRegion") == "true"]
    assert {(e.tag, e.get("name")) for e in per_region} == {
        ("Choices", "cited_facts"),
        ("TextArea", "note"),
    }


def test_the_marker_never_takes_a_project_label_name() -> None:
    assert unlabeled_name(["Supported"]) == "To label"
    assert unlabeled_name(["to label", "To label *"]) == "To label * *"


def _export(*annotations: dict[str, object]) -> str:
    return json.dumps(
        [
            {
                "id": 7,
                "data": {"answer": ANSWER, "grounding": {"item": 1}},
                "annotations": list(annotations),
            }
        ]
    )


def test_read_export_joins_a_regions_label_facts_and_note() -> None:
    result = [
        {
            "id": "r1",
            "from_name": "label",
            "to_name": "answer",
            "type": "labels",
            "value": {"start": 0, "end": 9, "text": "Go 🚀 now.", "labels": ["Supported"]},
        },
        {
            "id": "r1",
            "from_name": "cited_facts",
            "to_name": "answer",
            "type": "choices",
            "value": {"start": 0, "end": 9, "text": "Go 🚀 now.", "choices": ["2", "1"]},
        },
        {
            "id": "r1",
            "from_name": "note",
            "to_name": "answer",
            "type": "textarea",
            "value": {"start": 0, "end": 9, "text": ["line one", "הערה"]},
        },
        {
            "id": "r2",
            "from_name": "label",
            "to_name": "answer",
            "type": "labels",
            "value": {"start": 21, "end": 26, "text": "Done.", "labels": ["Unsupported"]},
        },
    ]
    tasks = read_export(
        _export(
            {"completed_by": 3, "created_username": " ann@example.org, 3", "result": result},
            {
                "completed_by": {"id": 4, "email": "bob@example.org"},
                "was_cancelled": True,
                "result": [],
            },
        )
    )
    assert len(tasks) == 1 and tasks[0].ls_id == "7" and tasks[0].ref == {"item": 1}
    first, second = tasks[0].annotations
    assert first.annotator == Annotator("3", "ann@example.org") and not first.cancelled
    assert first.regions == (
        Region(0, 9, "Go 🚀 now.", ("Supported",), ("2", "1"), "line one\nהערה"),
        Region(21, 26, "Done.", ("Unsupported",)),
    )
    assert second.cancelled and second.annotator == Annotator("4", "bob@example.org")


def test_read_export_names_results_it_cannot_place() -> None:
    result = [
        {"id": "r1", "from_name": "label", "value": {"labels": ["Supported"]}},
        {"id": "r9", "from_name": "note", "value": {"text": ["orphan"]}},
        "not an object",
    ]
    annotation = read_export(_export({"completed_by": 1, "result": result}))[0].annotations[0]
    assert annotation.regions == ()
    assert annotation.problems == (
        "[0].annotations[0].result[0]: a label without start and end.",
        "[0].annotations[0].result[2]: expected an object with a value.",
        "[0].annotations[0]: facts or a note for region 'r9', which has no label.",
    )


@pytest.mark.parametrize(
    ("raw", "field", "words"),
    [
        ("{}", "", "an array of tasks"),
        ("[1]", "[0]", "expected a task object"),
        ('[{"annotations": []}]', "[0].data", "needs its data"),
        ('[{"data": {}, "annotations": {}}]', "[0].annotations", "expected a list"),
        (
            '[{"data": {}, "annotations": [{"result": 5}]}]',
            "[0].annotations[0].result",
            "expected a list",
        ),
        ("not json", "", "not valid JSON"),
    ],
)
def test_read_export_refuses_a_file_that_is_not_one(raw: str, field: str, words: str) -> None:
    with pytest.raises(ImportFormatError) as caught:
        read_export(raw)
    assert caught.value.field == field and words in caught.value.message
