"""The labeling and agreement pages mark, beside the model's verdict, a claim the LLM judge
decided. A labeling claim keeps what judged it (`checked_by`) but not a fallback's reason,
so only the decided mark is shown there; other claims and blind projects show none."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from grounding_app.annotations.allocation import next_assignment
from grounding_app.annotations.items import create_project, import_jsonl
from grounding_app.annotations.labels import ClaimState, submit
from grounding_app.annotations.models import ItemClaim, LabelingProject
from grounding_app.engine import GroundingEngine
from tests.annotations.conftest import client_for

pytestmark = pytest.mark.django_db

FACTS = [{"factText": "Titanic is a 1997 American film directed by James Cameron."}]
ANSWER = "Titanic was directed by James Cameron. It starred Brad Pitt."
DECIDED = "Verdict decided by the LLM judge, an external model, not the local one"
MARK = (
    f'<span class="llm-mark llm-decided" dir="ltr" title="{DECIDED}" aria-hidden="true">'
    f'LLM judge</span><span class="sr-only">{DECIDED}</span>'
)


def judged_project(lead: Any, annotators: list[Any], blind: bool = False) -> LabelingProject:
    """A project whose second claim the LLM judge decided (set as the engine stores it)."""
    project = create_project(lead, name="Judged", overlap=3, blind=blind, annotators=annotators)
    line = json.dumps({"answerCandidate": ANSWER, "facts": FACTS})
    import_jsonl(project, line + "\n")
    ItemClaim.objects.filter(item__project=project, index=1).update(checked_by="llm_judge")
    return project


def cards(project: LabelingProject, user: Any) -> list[str]:
    assignment = next_assignment(project, user)
    assert assignment is not None
    response = client_for(user).get(assignment.get_absolute_url())
    assert response.status_code == 200
    return re.findall(r'<li class="claim-card.*?</li>', response.content.decode(), flags=re.S)


def test_the_labeling_page_marks_the_decided_claim_beside_the_model_verdict(
    fake_engine: GroundingEngine, lead: Any, annotators: list[Any]
) -> None:
    local, decided = cards(judged_project(lead, annotators), annotators[0])
    assert "llm-mark" not in local and "LLM judge" not in local
    assert MARK in decided
    assert re.search(
        r'class="model-side"><span class="badge model-verdict[^<]*</span><span class="llm-mark',
        decided,
    )


def test_a_blind_project_shows_no_mark(
    fake_engine: GroundingEngine, lead: Any, annotators: list[Any]
) -> None:
    page = "".join(cards(judged_project(lead, annotators, blind=True), annotators[0]))
    assert "llm-mark" not in page and "LLM judge" not in page


def test_the_agreement_page_marks_a_disputed_decided_claim(
    fake_engine: GroundingEngine, lead: Any, annotators: list[Any]
) -> None:
    project = judged_project(lead, annotators)
    for user, label in zip(annotators, ("supported", "unsupported", "supported"), strict=True):
        assignment = next_assignment(project, user)
        assert assignment is not None
        submit(assignment, {c.pk: ClaimState(label) for c in assignment.item.claims.all()})
    page = client_for(lead).get(f"/annotations/{project.pk}/agreement/").content.decode()
    local, decided = re.findall(r'<li class="disagreement.*?</li>', page, flags=re.S)
    assert "llm-mark" not in local
    assert MARK in decided
