"""Label Studio round trip: tasks out with the engine's verdicts as predictions, the
annotators' export back in as submitted labels equal to the labeling page's own, and
nothing overwritten: unknown, changed and conflicting annotations are reported."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Callable
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from grounding_app.annotations.allocation import next_assignment
from grounding_app.annotations.items import import_jsonl
from grounding_app.annotations.label_studio import import_annotations
from grounding_app.annotations.labels import ClaimState, submit
from grounding_app.annotations.models import Assignment, ClaimLabel, ItemClaim, LabelingProject
from tests.annotations.conftest import client_for

pytestmark = pytest.mark.django_db

# An answer with an emoji and Hebrew: its byte offsets and Label Studio's characters differ.
HEBREW_LINE = json.dumps(
    {
        "id": "he-1",
        "source": "library",
        "facts": [
            {"text": "הספרייה פתוחה ביום שישי עד 12. 📚", "attributes": {"author": "אתר העירייה"}},
            {"text": "בשבת הספרייה סגורה.", "attributes": {}},
        ],
        "claim": "📚 הספרייה פתוחה ביום שישי עד 12. בשבת היא סגורה.",
    },
    ensure_ascii=False,
)


@pytest.fixture
def make_ls_project(
    make_project: Callable[..., LabelingProject],
) -> Callable[..., LabelingProject]:
    def make(**kwargs: Any) -> LabelingProject:
        project = make_project(count=4, **kwargs)
        import_jsonl(project, HEBREW_LINE)
        return project

    return make


def _get(client: Any, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, url
    return b"".join(response.streaming_content).decode("utf-8")


def _tasks(lead: Any, project: LabelingProject) -> list[dict[str, Any]]:
    tasks = json.loads(
        _get(client_for(lead), f"/annotations/{project.pk}/label-studio/export.json")
    )
    assert isinstance(tasks, list)
    return tasks


# What the simulated annotators pick, by claim number over the whole project.
CHOICES = {
    "ann": [
        "Supported",
        "No check needed",
        "Unsupported",
        "Unsupported",
        "Supported",
        "Supported",
        "Unsupported",
    ],
    "bob": [
        "Unsupported",
        "No check needed",
        "Supported",
        "Unsupported",
        "Unsupported",
        "Unsupported",
        "Supported",
    ],
}


def _annotate(tasks: list[dict[str, Any]], who: dict[str, Any], name: str) -> None:
    """As Label Studio exports an annotation made from the prediction: each region kept,
    its label picked, facts cited (per-region choices) and a note (per-region textarea)."""
    number = 0
    for task in tasks:
        result = []
        facts = len(task["data"]["fact_choices"])
        for region in task["predictions"][0]["result"]:
            label = CHOICES[name][number]
            value = {k: region["value"][k] for k in ("start", "end", "text")}
            result.append({**region, "value": {**value, "labels": [label]}, "origin": "prediction"})
            if number % 2 == 0:
                cited = [str(n) for n in range(1, facts + 1)][-1:]
                result.append(
                    {
                        "id": region["id"],
                        "from_name": "cited_facts",
                        "to_name": "answer",
                        "type": "choices",
                        "value": {**value, "choices": cited},
                    }
                )
            if number % 3 == 0:
                result.append(
                    {
                        "id": region["id"],
                        "from_name": "note",
                        "to_name": "answer",
                        "type": "textarea",
                        "value": {
                            "start": value["start"],
                            "end": value["end"],
                            "text": [f"הערה {number} by {name}"],
                        },
                    }
                )
            number += 1
        task.setdefault("annotations", []).append(
            {"id": len(task["annotations"]) + 1, "result": result, "was_cancelled": False, **who}
        )


def _stored(project: LabelingProject) -> dict[tuple[str, int, int], tuple[str, list[int], str]]:
    return {
        (label.assignment.annotator.username, label.claim.item.position, label.claim.index): (
            label.label,
            label.cited_facts,
            label.note,
        )
        for label in ClaimLabel.objects.filter(claim__item__project=project).select_related(
            "assignment__annotator", "claim__item"
        )
        if label.assignment.status == Assignment.Status.SUBMITTED
    }


def _as_labeling_page(
    project: LabelingProject, export: list[dict[str, Any]], users: dict[str, Any]
) -> None:
    """The same labels given on the labeling page (submit), item by item."""
    keys = {label.name: label.key for label in project.labels}
    for annotator_index, user in enumerate(users.values()):
        while (assignment := next_assignment(project, user)) is not None:
            task = export[assignment.item.position]
            results = task["annotations"][annotator_index]["result"]
            states = {}
            for claim in ItemClaim.objects.filter(item=assignment.item).order_by("index"):
                region_id = f"claim-{claim.index + 1}"
                mine = [r for r in results if r["id"] == region_id]
                label = next(r for r in mine if r["from_name"] == "label")["value"]["labels"][0]
                cited = [
                    int(c) - 1
                    for r in mine
                    if r["from_name"] == "cited_facts"
                    for c in r["value"]["choices"]
                ]
                note = "".join(
                    t for r in mine if r["from_name"] == "note" for t in r["value"]["text"]
                )
                states[claim.pk] = ClaimState(keys[label], tuple(sorted(cited)), note)
            submit(assignment, states)


def test_round_trip_keeps_every_label_as_the_labeling_page_stores_it(
    make_ls_project: Callable[..., LabelingProject], lead: Any, annotators: list[Any]
) -> None:
    ann, bob = annotators[0], annotators[1]
    ann.email = "Ann@Example.org"
    ann.save()
    project = make_ls_project(overlap=2)
    tasks = _tasks(lead, project)
    assert len(tasks) == 5
    hebrew = tasks[4]
    answer = hebrew["data"]["answer"]
    regions = [r["value"] for r in hebrew["predictions"][0]["result"]]
    assert [answer[v["start"] : v["end"]] for v in regions] == [v["text"] for v in regions]
    claims = list(
        ItemClaim.objects.filter(item__project=project, item__position=4).order_by("index")
    )
    assert [(v["start"], v["end"]) for v in regions] != [
        (c.start, c.end) for c in claims
    ]  # bytes differ
    assert all(v["labels"][0] in {"Supported", "Unsupported", "No check needed"} for v in regions)

    _annotate(tasks, {"completed_by": 31, "created_username": " ann@example.org, 31"}, "ann")
    _annotate(tasks, {"completed_by": 12}, "bob")
    upload = SimpleUploadedFile("export.json", json.dumps(tasks, ensure_ascii=False).encode())
    response = client_for(lead).post(
        f"/annotations/{project.pk}/label-studio/", {"file": upload, "annotators": "12 = bob"}
    )
    assert response.status_code == 200
    report = response.context["report"]
    assert (report.imported, report.unchanged, report.problems) == (10, 0, [])
    assert "10</strong> annotations imported" in response.content.decode()

    twin = make_ls_project(overlap=2)
    _as_labeling_page(twin, tasks, {"ann": ann, "bob": bob})
    stored, expected = _stored(project), _stored(twin)
    assert len(stored) == 14 and stored == expected  # 7 claims, 2 annotators
    assert stored[("bob", 4, 0)][2] == "" and stored[("ann", 4, 1)][0] == "unsupported"
    assert any(note.startswith("הערה") for _, _, note in stored.values())

    again = import_annotations(project, json.dumps(tasks), {"12": "bob"})
    assert (again.imported, again.unchanged, again.problems) == (0, 10, [])


def test_a_changed_label_is_reported_and_never_overwrites(
    make_ls_project: Callable[..., LabelingProject], lead: Any, annotators: list[Any]
) -> None:
    project = make_ls_project(overlap=2)
    tasks = _tasks(lead, project)
    _annotate(tasks, {"completed_by": 1}, "ann")
    assert import_annotations(project, json.dumps(tasks), {"1": "ann"}).imported == 5
    before = _stored(project)
    tasks[0]["annotations"][0]["result"][0]["value"]["labels"] = ["Unsupported"]
    report = import_annotations(project, json.dumps(tasks), {"1": "ann"})
    assert (report.imported, report.unchanged) == (0, 4)
    assert report.problems == [
        "task 1 of the file, annotation 1 by Label Studio user 1: ann already submitted "
        "other labels here (claims 1); kept those."
    ]
    assert _stored(project) == before


def test_unknown_changed_and_unplaceable_tasks_are_reported(
    make_ls_project: Callable[..., LabelingProject], lead: Any, annotators: list[Any]
) -> None:
    project = make_ls_project(overlap=3)
    tasks = _tasks(lead, project)
    _annotate(tasks, {"completed_by": 1}, "ann")
    tasks[0]["id"] = 501
    tasks[0]["data"]["grounding"]["project"] = project.pk + 1000
    tasks[1]["data"]["answer"] += " Edited."
    tasks[2]["annotations"][0]["result"][0]["value"].update(start=1, text=None)
    tasks[3]["annotations"][0]["was_cancelled"] = True
    tasks[4]["annotations"][0]["completed_by"] = 77
    report = import_annotations(project, json.dumps(tasks), {"1": "ann"})
    assert report.imported == 0
    assert (
        report.problems[0] == "task 501: not a task exported from this project; nothing imported."
    )
    assert report.problems[1].endswith("its answer differs from item ex-1's; the task was changed.")
    assert (
        "its span at characters 1-" in report.problems[2]
        and "not one of the item's claims" in report.problems[2]
    )
    assert report.problems[3].endswith("skipped in Label Studio; nothing imported.")
    assert report.problems[4].endswith("map Label Studio user 77 to a username (“77 = name”).")
    assert not ClaimLabel.objects.filter(claim__item__project=project).exists()


def test_blind_projects_show_no_verdict_and_the_marker_must_be_replaced(
    make_ls_project: Callable[..., LabelingProject], lead: Any, annotators: list[Any]
) -> None:
    project = make_ls_project(overlap=1, blind=True)
    tasks = _tasks(lead, project)
    labels = {r["value"]["labels"][0] for t in tasks for r in t["predictions"][0]["result"]}
    assert labels == {"To label"}
    assert all("score" not in r for t in tasks for r in t["predictions"][0]["result"])
    tasks[0]["annotations"] = [{"completed_by": 1, "result": tasks[0]["predictions"][0]["result"]}]
    report = import_annotations(project, json.dumps(tasks), {"1": "ann"})
    assert report.problems == [
        "task 1 of the file, annotation 1 by Label Studio user 1: claim 1 is still “To label”."
    ]


def test_an_item_with_k_annotators_takes_no_more(
    make_ls_project: Callable[..., LabelingProject], lead: Any, annotators: list[Any]
) -> None:
    project = make_ls_project(overlap=1)
    tasks = _tasks(lead, project)
    _annotate(tasks, {"completed_by": 1}, "ann")
    _annotate(tasks, {"completed_by": 2}, "bob")
    report = import_annotations(project, json.dumps(tasks), {"1": "ann", "2": "bob"})
    assert (report.imported, len(report.problems)) == (5, 5)
    assert report.problems[0].endswith("the item already has its 1 annotators (k).")


def test_the_config_download_and_the_page(
    make_ls_project: Callable[..., LabelingProject], lead: Any, annotators: list[Any]
) -> None:
    project = make_ls_project(extra=("Partly supported",))
    xml = _get(client_for(lead), f"/annotations/{project.pk}/label-studio/export.json?part=config")
    values = [label.get("value") for label in ET.fromstring(xml).iter("Label")]
    # No marker label: every claim's prediction is one of the project's labels (issue 32).
    assert values == ["Supported", "Unsupported", "No check needed", "Partly supported"]
    page = client_for(lead).get(f"/annotations/{project.pk}/label-studio/")
    assert page.status_code == 200
    assert (
        f"/annotations/{project.pk}/label-studio/export.json?part=config".encode() in page.content
    )
    overview = client_for(lead).get(f"/annotations/{project.pk}/").content.decode()
    assert f'href="/annotations/{project.pk}/label-studio/"' in overview
    assert (
        client_for(annotators[0]).get(f"/annotations/{project.pk}/label-studio/").status_code == 403
    )
    bad = client_for(lead).post(
        f"/annotations/{project.pk}/label-studio/",
        {"file": SimpleUploadedFile("x.json", b'{"not": "a list"}'), "annotators": "oops"},
    )
    assert bad.status_code == 400 and "Label Studio id or email = username" in bad.content.decode()
    worse = client_for(lead).post(
        f"/annotations/{project.pk}/label-studio/",
        {"file": SimpleUploadedFile("x.json", b'{"not": "a list"}')},
    )
    assert worse.status_code == 400 and "an array of tasks" in worse.content.decode()


def test_a_region_drawn_again_with_the_space_after_it_is_still_its_claim(
    make_ls_project: Callable[..., LabelingProject], lead: Any, annotators: list[Any]
) -> None:
    project = make_ls_project(overlap=2)
    tasks = _tasks(lead, project)
    _annotate(tasks, {"completed_by": 1}, "ann")
    hebrew = tasks[4]
    first = hebrew["annotations"][0]["result"][0]
    first["id"] = "redrawn"
    first["value"]["end"] += 1  # the space between the two sentences
    first["value"]["text"] = hebrew["data"]["answer"][
        first["value"]["start"] : first["value"]["end"]
    ]
    assert first["value"]["text"].endswith(" ")
    report = import_annotations(project, json.dumps(tasks), {"1": "ann"})
    assert (report.imported, report.problems) == (5, [])
    stored = _stored(project)
    assert stored[("ann", 4, 0)][0] == "supported"  # CHOICES["ann"][5]


def test_only_the_projects_annotators_may_be_mapped(
    make_ls_project: Callable[..., LabelingProject],
    lead: Any,
    annotators: list[Any],
    make_user: Callable[..., Any],
) -> None:
    """Issue 32, item 13: `77 = nobody` (a user without a role, no annotator of the
    project) was accepted and stored as nobody's labels; an email matching a user outside
    the project likewise."""
    project = make_ls_project(overlap=3)
    make_user("", "nobody")
    outsider = make_user("annotator", "olga")
    outsider.email = "olga@example.org"
    outsider.save()
    tasks = _tasks(lead, project)
    _annotate(tasks, {"completed_by": 1}, "ann")
    _annotate(tasks, {"completed_by": 77}, "bob")
    _annotate(tasks, {"completed_by": 5, "created_username": "olga@example.org, 5"}, "ann")
    upload = SimpleUploadedFile("export.json", json.dumps(tasks, ensure_ascii=False).encode())
    response = client_for(lead).post(
        f"/annotations/{project.pk}/label-studio/",
        {"file": upload, "annotators": "1 = ann\n77 = nobody"},
    )
    report = response.context["report"]
    assert report.imported == 5 and len(report.problems) == 10
    assert report.problems[0] == (
        "task 1 of the file, annotation 2 by Label Studio user 77: the mapping line "
        "“77 = nobody” names 'nobody', who is not an annotator of this project; "
        "nothing of theirs imported."
    )
    assert report.problems[1].endswith(
        "the email 'olga@example.org' is olga's, who is not an annotator of this project; "
        "nothing of theirs imported."
    )
    assert {who for who, _, _ in _stored(project)} == {"ann"}


def test_a_cited_fact_of_5000_digits_is_that_annotations_problem(
    make_ls_project: Callable[..., LabelingProject], lead: Any, annotators: list[Any]
) -> None:
    """Issue 32, item 14: the cited fact's `int()` passed Python's digit limit: a 500."""
    project = make_ls_project(overlap=2)
    tasks = _tasks(lead, project)
    _annotate(tasks, {"completed_by": 1}, "ann")
    region = tasks[0]["annotations"][0]["result"][0]
    tasks[0]["annotations"][0]["result"].append(
        {
            **region,
            "from_name": "cited_facts",
            "type": "choices",
            "value": {**region["value"], "choices": ["1" * 5000]},
        }
    )
    upload = SimpleUploadedFile("export.json", json.dumps(tasks).encode())
    response = client_for(lead).post(
        f"/annotations/{project.pk}/label-studio/", {"file": upload, "annotators": "1 = ann"}
    )
    report = response.context["report"]
    assert report.imported == 4
    assert report.problems == [
        "task 1 of the file, annotation 1 by Label Studio user 1: claim 1 cites "
        "'11111111111111111111', which is no fact of the item."
    ]


def test_only_the_owner_or_an_admin_edits_picks_annotators_and_imports(
    make_ls_project: Callable[..., LabelingProject],
    lead: Any,
    annotators: list[Any],
    make_user: Callable[..., Any],
) -> None:
    """Issue 44 item 9: another reviewer could add annotators to a project and import
    labels as them; now that is the owner's (or an admin's), and who imported is kept."""
    project = make_ls_project(overlap=3)
    tasks = _tasks(lead, project)
    _annotate(tasks, {"completed_by": 1}, "ann")
    body = json.dumps(tasks, ensure_ascii=False).encode()
    other = client_for(make_user("reviewer", "rita"))
    olga = make_user("annotator", "olga")
    settings = {"name": "mine now", "overlap": 3, "annotators": [olga.pk]}
    for path, data in [
        ("settings/", settings),
        ("import/", {"raw": '{"id": "x"}'}),
        ("label-studio/", {"file": SimpleUploadedFile("e.json", body), "annotators": "1 = ann"}),
    ]:
        assert other.get(f"/annotations/{project.pk}/{path}").status_code == 403, path
        assert other.post(f"/annotations/{project.pk}/{path}", data).status_code == 403, path
    project.refresh_from_db()
    assert project.name == "Film facts" and not project.annotators.filter(pk=olga.pk).exists()
    assert not Assignment.objects.filter(item__project=project).exists()

    admin = make_user("admin", "ada")
    response = client_for(admin).post(
        f"/annotations/{project.pk}/label-studio/",
        {"file": SimpleUploadedFile("e.json", body), "annotators": "1 = ann"},
    )
    assert response.context["report"].imported == 5
    imported = Assignment.objects.filter(item__project=project)
    assert {a.imported_by for a in imported} == {admin}
    assert client_for(lead).get(f"/annotations/{project.pk}/settings/").status_code == 200
