"""The labeling and agreement pages mark, beside the model's verdict, a claim the LLM judge
decided, and one it fell back on (the mark, and the sentence below the claim, worded by
rendering/llm_notes.py as on the review page): a labeling claim keeps what judged it
(`checked_by`) and the engine's fallback note (`llm_fallback`), whether it came from an
import or from a sampled batch line. Other claims and blind projects show none."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import pytest
from django.utils.html import escape

from grounding_app.active_verifier.checker import checker
from grounding_app.annotations.allocation import next_assignment
from grounding_app.annotations.items import add_items, create_project, import_jsonl
from grounding_app.annotations.labels import ClaimState, submit
from grounding_app.annotations.models import ItemClaim, LabelingProject
from grounding_app.common.importing import check_item, parse_jsonl
from grounding_app.engine import CheckRequest, CheckResponse, GroundingEngine
from grounding_app.monitoring import sampling
from grounding_app.monitoring.models import SamplingRule
from tests.annotations.conftest import client_for
from tests.monitoring import data

pytestmark = pytest.mark.django_db

FACTS = [{"factText": "Titanic is a 1997 American film directed by James Cameron."}]
ANSWER = "Titanic was directed by James Cameron. It starred Brad Pitt."
DECIDED = "Verdict decided by the LLM judge, an external model, not the local one"
MARK = (
    f'<span class="llm-mark llm-decided" dir="ltr" title="{DECIDED}" aria-hidden="true">'
    f'LLM judge</span><span class="sr-only">{DECIDED}</span>'
)


def fell_back(reason: str, checked_by: str) -> tuple[str, str]:
    """The fallen-back claim's mark and its sentence below the claim, as the pages show them."""
    note = escape(f"LLM judge fell back ({reason}): the {checked_by}'s verdict stands")
    mark = (
        f'<span class="llm-mark llm-fell-back" dir="ltr" title="{note}" aria-hidden="true">'
        'LLM fell back</span><span class="sr-only">LLM fell back</span>'
    )
    return mark, f'<p class="llm-note" dir="ltr">{note}</p>'


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


def _second_fell_back(request: CheckRequest) -> CheckResponse:
    """The process checker's answer, with the LLM judge timed out on the second claim."""
    response = checker().respond(request)
    claims = list(response.claims)
    claims[1] = replace(claims[1], llm_judge="fell back: timeout")
    return replace(response, claims=tuple(claims))


def fallen_back_project(lead: Any, annotators: list[Any], blind: bool = False) -> LabelingProject:
    """A project whose item was checked, as an import checks it, by an engine whose LLM
    judge fell back on the second claim."""
    project = create_project(lead, name="Fell back", overlap=3, blind=blind, annotators=annotators)
    line = json.dumps({"answerCandidate": ANSWER, "facts": FACTS})
    add_items(project, [check_item(parse_jsonl(line)[0], _second_fell_back)])
    return project


def test_a_claim_checked_with_a_fallback_keeps_it_and_the_labeling_page_shows_it(
    fake_engine: GroundingEngine, lead: Any, annotators: list[Any]
) -> None:
    project = fallen_back_project(lead, annotators)
    claims = ItemClaim.objects.filter(item__project=project).order_by("index")
    assert [c.llm_fallback for c in claims] == ["", "fell back: timeout"]
    local, fallen = cards(project, annotators[0])
    assert "llm-" not in local and "LLM" not in local
    mark, note = fell_back("timeout", "feature judge")
    assert mark in fallen and note in fallen
    assert re.search(
        r'class="model-side"><span class="badge model-verdict[^<]*</span><span class="llm-mark',
        fallen,
    )
    blind = "".join(cards(fallen_back_project(lead, annotators, blind=True), annotators[0]))
    assert "llm-" not in blind and "LLM" not in blind


def test_the_agreement_page_shows_a_disputed_fallen_back_claim(
    fake_engine: GroundingEngine, lead: Any, annotators: list[Any]
) -> None:
    project = fallen_back_project(lead, annotators)
    for user, label in zip(annotators, ("supported", "unsupported", "supported"), strict=True):
        assignment = next_assignment(project, user)
        assert assignment is not None
        submit(assignment, {c.pk: ClaimState(label) for c in assignment.item.claims.all()})
    page = client_for(lead).get(f"/annotations/{project.pk}/agreement/").content.decode()
    local, fallen = re.findall(r'<li class="disagreement.*?</li>', page, flags=re.S)
    assert "llm-" not in local
    mark, note = fell_back("timeout", "feature judge")
    assert mark in fallen and note in fallen


def test_a_sampled_claim_keeps_the_batch_lines_fallback(lead: Any, annotators: list[Any]) -> None:
    job = data.job("uploaded")
    when = datetime(2026, 11, 30, 9, tzinfo=UTC)
    line = data.line(job, 1, when, claim_list=[("Titanic is a film.", "supported", 0.58)])
    result = line.result or {}
    segment = result["candidates"][0]["segments"][0]
    segment.update(checked_by="verifier", llm_judge="fell back: http 429")
    line.result, line.answer = result, "Titanic is a film."
    line.save(update_fields=["result", "answer"])
    project = create_project(lead, name="Sampled", overlap=1, annotators=annotators)
    rule = SamplingRule.objects.create(job=job, project=project, daily_quota=5)
    assert len(sampling.sample(rule, when.date())) == 1
    assert ItemClaim.objects.get(item__project=project).llm_fallback == "fell back: http 429"
    (card,) = cards(project, annotators[0])
    mark, note = fell_back("HTTP 429", "verifier")
    assert mark in card and note in card
