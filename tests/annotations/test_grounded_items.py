"""Gemini and agent answers as labeling items: no made-up verdict for sources without
text, the Search Suggestions beside the answer (sandboxed, as on the review page), and a
project's source policy on the facts."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from grounding_app.annotations.allocation import next_assignment
from grounding_app.annotations.items import create_project, import_jsonl, send_review
from grounding_app.annotations.models import ItemClaim, LabelingProject
from grounding_app.common.importing import NOT_CHECKABLE, check_item, parse_jsonl
from grounding_app.engine import CheckRequest, CheckResponse
from grounding_app.policies.models import SourcePolicy
from grounding_app.policies.services import attach_to_project
from grounding_app.reviews.models import Review
from grounding_app.reviews.views import SUGGESTIONS_CSP
from tests.annotations.conftest import client_for, label_all

pytestmark = pytest.mark.django_db

IMPORTS = Path(__file__).resolve().parent.parent / "fixtures" / "imports"


def line(name: str) -> str:
    return json.dumps(json.loads((IMPORTS / name).read_text(encoding="utf-8")))


@pytest.fixture
def gemini_project(fake_engine: Any, lead: Any, annotators: list[Any]) -> LabelingProject:
    project = create_project(lead, name="Gemini answers", annotators=annotators)
    import_jsonl(project, line("gemini_web_search.json") + "\n")
    return project


def test_sources_without_text_never_reach_the_engine() -> None:
    (source,) = parse_jsonl(line("gemini_web_search.json"))
    assert source.meta["facts_without_text"] == [0, 1, 2]
    assert len(source.meta["search_entry_html"]) == 1
    seen: list[CheckRequest] = []

    def check(request: CheckRequest) -> CheckResponse:
        seen.append(request)
        return CheckResponse((), (), None)

    check_item(source, check)
    assert seen[0].facts == ()  # never the titles "uefa.com", "aljazeera.com", ...


def test_web_search_claims_are_not_checkable_not_unsupported(
    gemini_project: LabelingProject,
) -> None:
    claims = ItemClaim.objects.filter(item__project=gemini_project)
    assert {c.model_verdict for c in claims} == {NOT_CHECKABLE}
    assert {c.model_score for c in claims} == {None}


def test_sources_with_text_keep_the_engine_verdict(fake_engine: Any) -> None:
    (source,) = parse_jsonl(line("gemini_retrieved_context.json"))
    assert "facts_without_text" not in source.meta
    checked = check_item(source, fake_engine.check)
    assert NOT_CHECKABLE not in {c.verdict for c in checked.claims}
    assert all(c.score is not None for c in checked.claims if c.check_required)


def test_label_page_says_not_checkable_and_shows_the_search_suggestions(
    gemini_project: LabelingProject, annotators: list[Any]
) -> None:
    owner = annotators[0]
    assignment = next_assignment(gemini_project, owner)
    assert assignment is not None
    client = client_for(owner)
    page = client.get(assignment.get_absolute_url()).content.decode()
    assert "Not checkable: no source text" in page
    assert "Unsupported 0.00" not in page
    assert "no source text: title and link only" in page
    frame = f'src="/annotations/label/{assignment.pk}/suggestions/0/"'
    assert frame in page
    assert 'sandbox="allow-popups allow-popups-to-escape-sandbox"' in page
    assert "srcdoc" not in page and "allow-scripts" not in page

    widget = client.get(f"/annotations/label/{assignment.pk}/suggestions/0/")
    assert widget.status_code == 200
    assert widget["Content-Security-Policy"] == SUGGESTIONS_CSP
    assert widget["X-Frame-Options"] == "SAMEORIGIN"
    body = widget.content.decode()
    assert body.startswith('<!doctype html><base target="_blank">')
    assert "who won euro 2024" in body
    assert client.get(f"/annotations/label/{assignment.pk}/suggestions/1/").status_code == 404
    # Nobody else may read another annotator's item through it.
    other = client_for(annotators[1])
    assert other.get(f"/annotations/label/{assignment.pk}/suggestions/0/").status_code == 404


def test_agreement_page_names_the_verdict(
    gemini_project: LabelingProject, annotators: list[Any], lead: Any
) -> None:
    for user, label in zip(annotators[:2], ("supported", "unsupported"), strict=True):
        assignment = next_assignment(gemini_project, user)
        assert assignment is not None
        label_all(assignment, label)
    page = client_for(lead).get(f"/annotations/{gemini_project.pk}/agreement/").content.decode()
    assert "Not checkable: no source text" in page
    assert "not_checkable</span>" not in page


def test_review_sent_to_a_project_keeps_suggestions_and_missing_text(
    fake_engine: Any,
    lead: Any,
    annotators: list[Any],
    make_user: Callable[..., Any],
) -> None:
    reviewer = client_for(lead)
    response = reviewer.post("/reviews/import/", {"payload": line("gemini_web_search.json")})
    assert response.status_code == 302
    project = create_project(lead, name="From reviews", annotators=annotators)
    review = Review.objects.get()
    item = send_review(project, review)
    assert item.meta["facts_without_text"] == [0, 1, 2]
    assert item.meta["search_entry_html"]
    assert {c.model_verdict for c in item.claims.all()} == {NOT_CHECKABLE}


def test_project_policy_flags_facts_on_the_label_page(
    gemini_project: LabelingProject, annotators: list[Any], lead: Any
) -> None:
    policy = SourcePolicy.objects.create(
        name="Sports desk", excluded_domains=["uefa.com"], preferred_domains=["wikipedia.org"]
    )
    attach_to_project(gemini_project, policy, lead)
    assignment = next_assignment(gemini_project, annotators[0])
    assert assignment is not None
    page = client_for(annotators[0]).get(assignment.get_absolute_url()).content.decode()
    assert 'data-policy="excluded"' in page and "Excluded domain <bdi>(uefa.com)</bdi>" in page
    assert "Preferred <bdi>(wikipedia.org)</bdi>" in page
    project_page = client_for(lead).get(gemini_project.get_absolute_url()).content.decode()
    assert "Sports desk" in project_page


def test_project_page_lets_leads_pick_a_policy(
    project: LabelingProject, lead: Any, annotators: list[Any]
) -> None:
    policy = SourcePolicy.objects.create(name="Strict")
    client = client_for(lead)
    page = client.get(project.get_absolute_url()).content.decode()
    assert f'action="/policies/project/{project.pk}/"' in page
    assert client.post(f"/policies/project/{project.pk}/", {"policy": policy.pk}).status_code == 302
    assert project.source_policy.policy == policy
    annotator_page = client_for(annotators[0]).get(project.get_absolute_url()).content.decode()
    assert "/policies/project/" not in annotator_page
    assert client.post(f"/policies/project/{project.pk}/", {"policy": ""}).status_code == 302
    assert not SourcePolicy.objects.get().projects.exists()
