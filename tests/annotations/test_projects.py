"""Creating projects from JSONL, their settings, more items, and reviews sent to them."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command

from grounding_app.annotations.allocation import next_assignment
from grounding_app.annotations.labels import ClaimState, save_draft
from grounding_app.annotations.models import Item, LabelingProject
from grounding_app.engine import GroundingEngine
from grounding_app.reviews.models import Review
from tests.annotations.conftest import client_for, film_jsonl, grounding_line
from tests.reviews.conftest import fixture_text

pytestmark = pytest.mark.django_db


def _settings(annotators: list[Any], **extra: Any) -> dict[str, Any]:
    return {
        "name": "Support labels",
        "instructions": "Facts only.",
        "extra_labels": "Partially supported\nContradicted",
        "overlap": "2",
        "blind": "on",
        "annotators": [a.pk for a in annotators],
        **extra,
    }


def test_create_a_project_from_pasted_jsonl(
    lead: Any, annotators: list[Any], fake_engine: GroundingEngine
) -> None:
    client = client_for(lead)
    assert "New labeling project" in client.get("/annotations/new/").content.decode()
    response = client.post("/annotations/new/", _settings(annotators, payload=film_jsonl(3)))
    project = LabelingProject.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/annotations/{project.pk}/"
    assert project.blind and project.overlap == 2 and project.created_by == lead
    assert project.extra_labels == ["Partially supported", "Contradicted"]
    assert [label.key for label in project.labels][3:] == ["partially_supported", "contradicted"]
    assert set(project.annotators.all()) == set(annotators)
    assert list(project.items.values_list("position", "external_id")) == [
        (0, "ex-0"),
        (1, "ex-1"),
        (2, "ex-2"),
    ]
    page = client.get(response["Location"]).content.decode()
    assert "Imported 3 items." in page and "Partially supported" in page


def test_create_from_an_uploaded_file_and_empty(
    lead: Any, annotators: list[Any], fake_engine: GroundingEngine
) -> None:
    client = client_for(lead)
    upload = SimpleUploadedFile("items.jsonl", film_jsonl(2).encode(), "application/x-ndjson")
    client.post("/annotations/new/", _settings(annotators, file=upload))
    assert Item.objects.count() == 2
    response = client.post("/annotations/new/", _settings(annotators, name="Empty for now"))
    assert response.status_code == 302
    assert LabelingProject.objects.get(name="Empty for now").items.count() == 0


def test_a_bad_line_creates_nothing_and_says_where(
    lead: Any, annotators: list[Any], fake_engine: GroundingEngine
) -> None:
    payload = grounding_line(1, "Fine.") + "\n{oops\n"
    response = client_for(lead).post("/annotations/new/", _settings(annotators, payload=payload))
    assert response.status_code == 200
    assert "line 2: not valid JSON" in response.content.decode()
    assert not LabelingProject.objects.exists() and not Item.objects.exists()


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("overlap", "0", "greater than or equal to 1"),
        ("overlap", "21", "less than or equal to 20"),
        ("extra_labels", "Supported", "already in the set"),
        ("name", "", "This field is required"),
    ],
)
def test_settings_are_validated(
    lead: Any, annotators: list[Any], field: str, value: str, message: str
) -> None:
    response = client_for(lead).post("/annotations/new/", _settings(annotators, **{field: value}))
    assert response.status_code == 200 and message in response.content.decode()


def test_settings_keep_labels_in_use(
    project: LabelingProject, lead: Any, annotators: list[Any]
) -> None:
    project.extra_labels = ["Partially supported"]
    project.save()
    assignment = next_assignment(project, annotators[0])
    assert assignment is not None
    claim = assignment.item.claims.get()
    save_draft(assignment, {claim.pk: ClaimState("partially_supported")})
    client = client_for(lead)
    data = _settings(annotators, extra_labels="", overlap="3")
    response = client.post(f"/annotations/{project.pk}/settings/", data)
    assert "cannot be removed: Partially supported" in response.content.decode()
    data["extra_labels"] = "Partially supported\nContradicted"
    response = client.post(f"/annotations/{project.pk}/settings/", data)
    assert response.status_code == 302
    project.refresh_from_db()
    assert project.overlap == 3 and project.extra_labels == ["Partially supported", "Contradicted"]


def test_importing_more_items_appends_them(
    project: LabelingProject, lead: Any, fake_engine: GroundingEngine
) -> None:
    client = client_for(lead)
    line = json.dumps(json.loads(fixture_text("gemini_web_search.json")))
    response = client.post(f"/annotations/{project.pk}/import/", {"payload": line})
    assert response.status_code == 302
    item = project.items.order_by("position").last()
    assert (item.position, item.source) == (4, "gemini")
    assert item.claims.exists() and item.facts
    response = client.post(f"/annotations/{project.pk}/import/", {})
    assert "Paste JSONL or choose a file" in response.content.decode()


def test_overview_for_leads_and_annotators(
    project: LabelingProject, lead: Any, annotators: list[Any]
) -> None:
    lead_page = client_for(lead).get(f"/annotations/{project.pk}/").content.decode()
    assert "Submissions" in lead_page and "ann" in lead_page and "Export" in lead_page
    assert "Your queue" not in lead_page
    annotator_page = client_for(annotators[0]).get(f"/annotations/{project.pk}/").content.decode()
    assert "Your queue" in annotator_page and "Start labeling" in annotator_page
    assert "Export" not in annotator_page and "Label each claim against the facts" in annotator_page


def _review(client: Any, fixture: str) -> Review:
    response = client.post("/reviews/import/", {"payload": fixture_text(fixture)})
    assert response.status_code == 302
    return Review.objects.get(public_id=response["Location"].split("/")[-2])


@pytest.mark.parametrize("fixture", ["check_grounding_request.json", "gemini_web_search.json"])
def test_send_a_saved_review_to_a_project(
    project: LabelingProject, lead: Any, fake_engine: GroundingEngine, fixture: str
) -> None:
    client = client_for(lead)
    review = _review(client, fixture)
    page = client.get(review.get_absolute_url()).content.decode()
    assert (
        "Send to labeling project" in page
        and f'value="{project.pk}" required><bdi>Film facts</bdi>' in page
    )
    url = f"/annotations/send-review/{review.public_id}/"
    response = client.post(url, {"project": project.pk})
    assert response.status_code == 302 and response["Location"] == review.get_absolute_url()
    item = project.items.get(review=review)
    assert item.external_id == f"review-{review.public_id}" and item.claims.exists()
    assert (
        "Sent to “Film facts” as item 5" in client.get(review.get_absolute_url()).content.decode()
    )
    client.post(url, {"project": project.pk})
    assert "already in “Film facts”" in client.get(review.get_absolute_url()).content.decode()
    assert project.items.filter(review=review).count() == 1
    review.delete()  # an item copied from a review goes with it
    assert not project.items.filter(external_id=f"review-{review.public_id}").exists()


def test_no_send_form_without_projects(lead: Any, fake_engine: GroundingEngine) -> None:
    client = client_for(lead)
    review = _review(client, "check_grounding_request.json")
    assert "Send to labeling project" not in client.get(review.get_absolute_url()).content.decode()


def test_annotation_bench_prints_a_median(capsys: pytest.CaptureFixture[str]) -> None:
    call_command("annotation_bench", "--claims", "6", "--facts", "3", "--runs", "2")
    out = capsys.readouterr().out
    assert out.startswith("labeling page with 6 claims and 3 facts") and "median" in out
    assert not LabelingProject.objects.exists()  # rolled back


def test_admin_pages(project: LabelingProject, annotators: list[Any], make_user: Any) -> None:
    assignment = next_assignment(project, annotators[0])
    assert assignment is not None
    client = client_for(make_user("superuser"))
    item = project.items.first()
    for url in (
        "/admin/annotations/labelingproject/",
        f"/admin/annotations/labelingproject/{project.pk}/change/",
        "/admin/annotations/item/",
        f"/admin/annotations/item/{item.pk}/change/",
        "/admin/annotations/assignment/",
        f"/admin/annotations/assignment/{assignment.pk}/change/",
    ):
        assert client.get(url).status_code == 200, url


@pytest.mark.parametrize("url", ["/annotations/new/", "settings"])
@pytest.mark.parametrize("pk", ["99999999999999999999", "-99999999999999999999", "1.5", "²"])
def test_an_impossible_annotator_is_a_form_error(
    project: LabelingProject, lead: Any, annotators: list[Any], url: str, pk: str
) -> None:
    if url == "settings":
        url = f"/annotations/{project.pk}/settings/"
    data = _settings(annotators, name="Renamed")
    data["annotators"] = [*data["annotators"], pk]
    response = client_for(lead).post(url, data)
    assert response.status_code == 200
    assert "is not a valid value" in response.content.decode()
    assert LabelingProject.objects.get() == project
    project.refresh_from_db()
    assert project.name == "Film facts" and set(project.annotators.all()) == set(annotators)


def test_an_import_with_a_null_character_stores_nothing(
    project: LabelingProject, lead: Any, fake_engine: GroundingEngine
) -> None:
    payload = film_jsonl(1) + grounding_line(1, "Titanic\x00 was directed by James Cameron.")
    response = client_for(lead).post(f"/annotations/{project.pk}/import/", {"payload": payload})
    assert response.status_code == 200
    assert "Null characters (U+0000) cannot be stored." in response.content.decode()
    assert project.items.count() == 4
