"""Exports: every label as JSONL and CSV, and training lines that grounding_eval reads."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from grounding_app.annotations import agreement
from grounding_app.annotations.allocation import next_assignment
from grounding_app.annotations.labels import ClaimState, save_draft, submit
from grounding_app.annotations.models import ItemClaim, LabelingProject
from grounding_app.engine import GroundingEngine, slice_bytes
from grounding_app.formats.grounding_jsonl import read_examples
from tests.annotations.conftest import FILM_FACTS, client_for

pytestmark = pytest.mark.django_db


def _download(client: Any, url: str) -> tuple[Any, str]:
    response = client.get(url)
    assert response.status_code == 200, url
    return response, b"".join(response.streaming_content).decode("utf-8")


def test_full_jsonl_has_spans_labels_model_and_final(
    labeled: tuple[LabelingProject, list[ItemClaim]], lead: Any
) -> None:
    project, claims = labeled
    agreement.adjudicate(claims[4], "unsupported", lead)
    response, body = _download(client_for(lead), f"/annotations/{project.pk}/export.jsonl")
    assert response["Content-Type"].startswith("application/x-ndjson")
    assert 'filename="film-facts-labels.jsonl"' in response["Content-Disposition"]
    items = [json.loads(line) for line in body.splitlines()]
    assert [item["id"] for item in items] == ["ex-0", "ex-1", "ex-2", "ex-3"]
    assert items[0]["facts"] == FILM_FACTS and items[0]["meta"] == {"reference_label": 1}
    for item in items:
        for claim in item["claims"]:
            assert slice_bytes(item["answer"], claim["start"], claim["end"]) == claim["text"]
            model = claim["model"]
            assert set(model) == {"verdict", "score", "cited_facts", "language", "checked_by"}
            # the fixture's English claims: read by the engine's model, never word-matched
            assert model["checked_by"] in ("", "verifier", "feature_judge")
            assert model["language"] == ("en" if claim["check_required"] else "")
    second = items[1]["claims"]
    assert second[0]["check_required"] is False and second[0]["final"] == "no_check"
    labels = second[1]["labels"]
    assert [(x["annotator"], x["label"], x["cited_facts"]) for x in labels] == [
        ("ann", "supported", [0]),
        ("bob", "supported", [0]),
        ("cat", "unsupported", [0]),
    ]
    last = items[3]["claims"][0]
    assert (last["majority"], last["adjudicated"], last["final"]) == (
        "supported",
        "unsupported",
        "unsupported",
    )


def test_grounding_export_round_trips_through_the_dataset_reader_and_eval(
    labeled: tuple[LabelingProject, list[ItemClaim]],
    lead: Any,
    tmp_path: Path,
    fake_engine: GroundingEngine,
    capsys: pytest.CaptureFixture[str],
) -> None:
    project, claims = labeled
    agreement.adjudicate(claims[4], "unsupported", lead)
    _, body = _download(
        client_for(lead), f"/annotations/{project.pk}/export.jsonl?schema=grounding"
    )
    path = tmp_path / "labels.jsonl"
    path.write_text(body, encoding="utf-8")
    examples = list(read_examples(path))
    # "Here is what I found." is no-check: left out. Final labels S, S, U, U (adjudicated).
    assert [(e.id, e.claim, e.label) for e in examples] == [
        ("ex-0#1", "Titanic was directed by James Cameron.", 1),
        ("ex-1#2", "Titanic stars Kate Winslet.", 1),
        ("ex-2#1", "Titanic was directed by Steven Spielberg in 1975.", 0),
        ("ex-3#1", "The RMS Titanic carried over 1,500 people to their death.", 0),
    ]
    assert all(
        e.source == "film" and e.facts[0].attributes == FILM_FACTS[0]["attributes"]
        for e in examples
    )
    meta = json.loads(body.splitlines()[1])["meta"]
    assert meta["context"] == "Here is what I found." and meta["annotators"] == 3

    call_command("grounding_eval", str(path), "--json")
    report = json.loads(capsys.readouterr().out)
    assert report["labels.jsonl"][0]["n"] == 4
    assert 0.0 <= report["labels.jsonl"][0]["balanced_accuracy"] <= 1.0


def test_ties_and_unlabeled_claims_are_left_out_of_training_lines(
    make_project: Any, annotators: list[Any], lead: Any
) -> None:
    project = make_project(count=1, overlap=2)
    for user, label in zip(annotators, ("supported", "unsupported"), strict=False):
        assignment = next_assignment(project, user)
        assert assignment is not None
        submit(
            assignment,
            {c.pk: ClaimState(label) for c in assignment.item.claims.all()},
        )
    _, body = _download(
        client_for(lead), f"/annotations/{project.pk}/export.jsonl?schema=grounding"
    )
    assert body == ""


def test_csv_has_one_row_per_label_and_defuses_formulas(
    labeled: tuple[LabelingProject, list[ItemClaim]], lead: Any, annotators: list[Any]
) -> None:
    project, claims = labeled
    label = claims[0].labels.get(assignment__annotator=annotators[0])
    label.note = '=HYPERLINK("http://evil")'
    label.save()
    response, body = _download(client_for(lead), f"/annotations/{project.pk}/export.csv")
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(body)))
    assert len(rows) == 15  # 5 claims x 3 annotators
    first = rows[0]
    assert (first["item_id"], first["claim_index"], first["annotator"]) == ("ex-0", "0", "ann")
    assert first["note"] == '\'=HYPERLINK("http://evil")'
    assert first["cited_facts"] == "0" and first["final"] == "supported"
    assert {row["check_required"] for row in rows} == {"True", "False"}


def test_a_claim_without_labels_still_gets_a_csv_row(make_project: Any, lead: Any) -> None:
    project = make_project(count=1)
    _, body = _download(client_for(lead), f"/annotations/{project.pk}/export.csv")
    rows = list(csv.DictReader(io.StringIO(body)))
    assert len(rows) == 1 and rows[0]["annotator"] == "" and rows[0]["final"] == ""


def test_drafts_are_not_exported(make_project: Any, annotators: list[Any], lead: Any) -> None:
    project = make_project(count=1)
    assignment = next_assignment(project, annotators[0])
    assert assignment is not None
    claim = assignment.item.claims.get()
    save_draft(assignment, {claim.pk: ClaimState("supported")})
    _, body = _download(client_for(lead), f"/annotations/{project.pk}/export.jsonl")
    assert json.loads(body)["claims"][0]["labels"] == []
