"""The labeling page: drafts saved as you go, submit, skip, blind mode, read-only after."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from grounding_app.annotations.allocation import next_assignment
from grounding_app.annotations.labels import skip
from grounding_app.annotations.models import Assignment, ClaimLabel, LabelingProject
from grounding_app.annotations.progress import Progress, annotator_progress
from tests.annotations.conftest import client_for

pytestmark = pytest.mark.django_db


def _start(client: Client, project: LabelingProject) -> Assignment:
    response = client.post(f"/annotations/{project.pk}/next/")
    assert response.status_code == 302
    match = re.fullmatch(r"/annotations/label/(\d+)/", response["Location"])
    assert match, response["Location"]
    return Assignment.objects.get(pk=match[1])


def _fields(assignment: Assignment, label: str = "supported") -> dict[str, Any]:
    data: dict[str, Any] = {}
    for claim in assignment.item.claims.all():
        data[f"label-{claim.pk}"] = label
        data[f"cite-{claim.pk}"] = ["0"]
        data[f"note-{claim.pk}"] = ""
    return data


def test_page_shows_claims_facts_shortcuts_and_progress(
    project: LabelingProject, annotators: list[Any]
) -> None:
    client = client_for(annotators[0])
    assignment = _start(client, project)
    page = client.get(assignment.get_absolute_url()).content.decode()
    claim = assignment.item.claims.get()
    assert claim.text in page
    assert f'name="label-{claim.pk}" value="no_check"' in page
    assert "Simple Wikipedia" in page and 'href="https://example.org/titanic"' in page
    assert "<kbd>j</kbd>" in page and "<kbd>u</kbd>" in page and "<kbd>Ctrl</kbd>" in page
    assert 'id="item-progress"' in page and "0 done · 4 to go" in page
    assert "js/annotate.js" in page
    assert f"model-verdict v-{claim.model_verdict}" in page  # not blind: the model is shown


def test_drafts_survive_a_reload(project: LabelingProject, annotators: list[Any]) -> None:
    client = client_for(annotators[0])
    assignment = _start(client, project)
    claim = assignment.item.claims.get()
    draft_url = f"/annotations/label/{assignment.pk}/draft/"
    response = client.post(
        draft_url,
        {
            "claim": claim.pk,
            f"label-{claim.pk}": "unsupported",
            f"cite-{claim.pk}": ["1"],
            f"note-{claim.pk}": "says 1998",
        },
    )
    assert response.status_code == 200 and response.json() == {"saved": True}
    page = client.get(assignment.get_absolute_url()).content.decode()
    assert 'value="unsupported" checked' in page
    assert re.search(rf'name="cite-{claim.pk}" value="1" checked', page)
    assert ">says 1998</textarea>" in page
    assert "1 / 1 claim<" in page  # one claim: singular (issue 32)


@pytest.mark.parametrize(
    ("field", "value", "status"),
    [
        ("label", "maybe", 400),
        ("cite", "9", 400),
        ("cite", "-1", 400),
        ("note", "x" * 2001, 400),
        ("note", "a\x00b", 400),  # PostgreSQL cannot store a NUL
    ],
)
def test_bad_drafts_are_refused(
    project: LabelingProject, annotators: list[Any], field: str, value: str, status: int
) -> None:
    client = client_for(annotators[0])
    assignment = _start(client, project)
    claim = assignment.item.claims.get()
    response = client.post(
        f"/annotations/label/{assignment.pk}/draft/",
        {"claim": claim.pk, f"{field}-{claim.pk}": value},
    )
    assert response.status_code == status and "error" in response.json()
    assert not ClaimLabel.objects.exists()


def test_a_claim_of_another_item_is_404(project: LabelingProject, annotators: list[Any]) -> None:
    client = client_for(annotators[0])
    assignment = _start(client, project)
    other = project.items.exclude(pk=assignment.item_id).first().claims.first()
    response = client.post(f"/annotations/label/{assignment.pk}/draft/", {"claim": other.pk})
    assert response.status_code == 404


def test_submit_needs_every_label_then_moves_on(
    project: LabelingProject, annotators: list[Any]
) -> None:
    client = client_for(annotators[0])
    assignment = _start(client, project)
    submit_url = f"/annotations/label/{assignment.pk}/submit/"
    response = client.post(submit_url, {})
    assert response.status_code == 400
    assert "1 claim still need" in response.content.decode()
    response = client.post(submit_url, _fields(assignment))
    assert response.status_code == 302
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.SUBMITTED
    assert assignment.labels.get().cited_facts == [0]
    following = Assignment.objects.get(pk=response["Location"].split("/")[-2])
    assert following.item != assignment.item
    # Submitted work is read-only: drafts are refused, the page shows it as submitted.
    claim = assignment.item.claims.get()
    draft = client.post(
        f"/annotations/label/{assignment.pk}/draft/",
        {"claim": claim.pk, f"label-{claim.pk}": "unsupported"},
    )
    assert draft.status_code == 409
    page = client.get(assignment.get_absolute_url()).content.decode()
    assert "data-read-only" in page and '<fieldset class="label-options" disabled>' in page


def test_last_submit_leads_back_to_the_project(
    make_project: Callable[..., LabelingProject], annotators: list[Any]
) -> None:
    project = make_project(count=1, overlap=1)
    client = client_for(annotators[0])
    assignment = _start(client, project)
    response = client.post(f"/annotations/label/{assignment.pk}/submit/", _fields(assignment))
    assert response["Location"] == f"/annotations/{project.pk}/"
    page = client.get(response["Location"]).content.decode()
    assert "Nothing left to label" in page and "All done" in page
    # One message: what happened, then where it leads (no "next item" that is not there).
    assert "Submitted. Nothing left to label in this project." in page
    assert "Here is the next item" not in page


def test_skip_goes_to_another_item(project: LabelingProject, annotators: list[Any]) -> None:
    client = client_for(annotators[0])
    assignment = _start(client, project)
    response = client.post(f"/annotations/label/{assignment.pk}/skip/")
    assert response.status_code == 302
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.SKIPPED
    assert Assignment.objects.get(pk=response["Location"].split("/")[-2]).item != assignment.item


def test_blind_mode_hides_the_model(
    make_project: Callable[..., LabelingProject], annotators: list[Any]
) -> None:
    project = make_project(blind=True)
    client = client_for(annotators[0])
    assignment = _start(client, project)
    claim = assignment.item.claims.get()
    assert claim.model_score is not None
    page = client.get(assignment.get_absolute_url()).content.decode()
    assert "model-verdict" not in page
    assert "data-model-cites" not in page and "is-model-cited" not in page
    assert f"{claim.model_score:.2f}" not in page
    assert "model verdicts hidden" in page


def test_extra_labels_get_the_next_digits(
    make_project: Callable[..., LabelingProject], annotators: list[Any]
) -> None:
    project = make_project(extra=("Partially supported",))
    client = client_for(annotators[0])
    assignment = _start(client, project)
    page = client.get(assignment.get_absolute_url()).content.decode()
    assert 'value="partially_supported"><kbd>4</kbd>Partially supported' in page


def test_someone_elses_assignment_is_not_found(
    project: LabelingProject, annotators: list[Any]
) -> None:
    assignment = _start(client_for(annotators[0]), project)
    other = client_for(annotators[1])
    for path in ("", "draft/", "submit/", "skip/"):
        method = other.get if not path else other.post
        assert method(f"/annotations/label/{assignment.pk}/{path}").status_code == 404


def test_an_annotator_removed_from_the_project_can_no_longer_label(
    project: LabelingProject, annotators: list[Any]
) -> None:
    client = client_for(annotators[0])
    assignment = _start(client, project)
    project.annotators.remove(annotators[0])
    assert client.get(assignment.get_absolute_url()).status_code == 403
    assert client.post(f"/annotations/{project.pk}/next/").status_code == 403


def test_progress_counts_what_is_left(project: LabelingProject, annotators: list[Any]) -> None:
    ann = annotators[0]
    assert annotator_progress(project, ann) == Progress(0, 4)
    assignment = next_assignment(project, ann)
    assert assignment is not None
    skip(assignment)
    assert annotator_progress(project, ann) == Progress(0, 3)


@pytest.mark.parametrize("claim", ["abc", "1.5", "", "-1", "²", "99999999999999999999", "1e309"])
def test_a_malformed_claim_id_is_refused_and_keeps_the_draft(
    project: LabelingProject, annotators: list[Any], claim: str
) -> None:
    client = client_for(annotators[0])
    assignment = _start(client, project)
    own = assignment.item.claims.get()
    draft_url = f"/annotations/label/{assignment.pk}/draft/"
    saved = {"claim": own.pk, f"label-{own.pk}": "supported", f"cite-{own.pk}": ["0"]}
    assert client.post(draft_url, saved).status_code == 200
    response = client.post(draft_url, {"claim": claim, f"label-{own.pk}": "unsupported"})
    assert response.status_code in (400, 404)
    if response.status_code == 400:
        assert "error" in response.json()
    label = ClaimLabel.objects.get()
    assert (label.label, label.cited_facts) == ("supported", [0])


@pytest.mark.parametrize("cite", ["²", "\u0661", "\uff10", "1.5", " 1", "+1", "9" * 5000])
@pytest.mark.parametrize("action", ["draft", "submit"])
def test_a_malformed_fact_number_is_refused_and_keeps_the_draft(
    project: LabelingProject, annotators: list[Any], cite: str, action: str
) -> None:
    client = client_for(annotators[0])
    assignment = _start(client, project)
    claim = assignment.item.claims.get()
    saved = {"claim": claim.pk, f"label-{claim.pk}": "supported", f"cite-{claim.pk}": ["0"]}
    assert client.post(f"/annotations/label/{assignment.pk}/draft/", saved).status_code == 200
    posted = {**saved, f"label-{claim.pk}": "unsupported", f"cite-{claim.pk}": ["1", cite]}
    response = client.post(f"/annotations/label/{assignment.pk}/{action}/", posted)
    assert response.status_code == 400
    assert "There is no fact" in response.content.decode()
    label = ClaimLabel.objects.get()
    assert (label.label, label.cited_facts) == ("supported", [0])
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.IN_PROGRESS
