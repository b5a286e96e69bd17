"""Claims the engine judged by word matching (a language its model does not read) keep
that fact in the project, and the labeling and agreement pages show it beside the
model's verdict; English claims, blind projects and claims stored before show nothing."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest

from grounding_app.annotations.allocation import next_assignment
from grounding_app.annotations.items import create_project, import_jsonl
from grounding_app.annotations.labels import ClaimState, submit
from grounding_app.annotations.models import ItemClaim, LabelingProject
from grounding_app.engine import GroundingEngine
from tests.annotations.conftest import client_for

pytestmark = pytest.mark.django_db

FACTS = [
    {"factText": "Titanic is a 1997 American film directed by James Cameron."},
    {"factText": "טיטאניק הוא סרט אמריקאי משנת 1997 שביים ג'יימס קמרון."},
]
ANSWER = "Titanic was directed by James Cameron. טיטאניק בוים על ידי ג'יימס קמרון."
NOTE = "Hebrew: checked by word matching; this feature judge reads English"


def mixed_project(lead: Any, annotators: list[Any], blind: bool = False) -> LabelingProject:
    project = create_project(lead, name="Mixed", overlap=3, blind=blind, annotators=annotators)
    line = json.dumps({"answerCandidate": ANSWER, "facts": FACTS}, ensure_ascii=False)
    import_jsonl(project, line + "\n")
    return project


def label_page(project: LabelingProject, user: Any) -> str:
    assignment = next_assignment(project, user)
    assert assignment is not None
    response = client_for(user).get(assignment.get_absolute_url())
    assert response.status_code == 200
    return response.content.decode()


def cards(page: str) -> list[str]:
    return re.findall(r'<li class="claim-card.*?</li>', page, flags=re.S)


def test_the_claims_keep_their_language_and_judge(
    fake_engine: GroundingEngine, lead: Any, annotators: list[Any]
) -> None:
    project = mixed_project(lead, annotators)
    stored = ItemClaim.objects.filter(item__project=project).order_by("index")
    assert [(c.language, c.checked_by) for c in stored] == [
        ("en", "feature_judge"),
        ("he", "word_matching"),
    ]


def test_the_labeling_page_marks_the_hebrew_claim_only(
    fake_engine: GroundingEngine, lead: Any, annotators: list[Any]
) -> None:
    page = label_page(mixed_project(lead, annotators), annotators[0])
    english, hebrew = cards(page)
    assert "word matching" not in english and "wm-mark" not in english
    assert (
        f'<span class="wm-mark" dir="ltr" title="{NOTE}" aria-hidden="true">'
        f'Hebrew: word matching</span><span class="sr-only">{NOTE}</span>'
    ) in hebrew
    # beside the model's verdict, in the same column
    assert re.search(
        r'class="model-side"><span class="badge model-verdict[^<]*</span><span cl', hebrew
    )


def test_a_blind_project_shows_no_mark(
    fake_engine: GroundingEngine, lead: Any, annotators: list[Any]
) -> None:
    page = label_page(mixed_project(lead, annotators, blind=True), annotators[0])
    assert "word matching" not in page and "model-verdict" not in page


def test_claims_stored_before_show_no_mark(
    fake_engine: GroundingEngine, lead: Any, annotators: list[Any]
) -> None:
    project = mixed_project(lead, annotators)
    ItemClaim.objects.filter(item__project=project).update(language="", checked_by="")
    assert "word matching" not in label_page(project, annotators[0])


def test_the_agreement_page_marks_a_disputed_hebrew_claim(
    fake_engine: GroundingEngine,
    lead: Any,
    annotators: list[Any],
    make_user: Callable[..., Any],
) -> None:
    project = mixed_project(lead, annotators)
    for user, label in zip(annotators, ("supported", "unsupported", "supported"), strict=True):
        assignment = next_assignment(project, user)
        assert assignment is not None
        submit(
            assignment,
            {c.pk: ClaimState(label) for c in assignment.item.claims.all()},
        )
    page = client_for(lead).get(f"/annotations/{project.pk}/agreement/").content.decode()
    disputes = re.findall(r'<li class="disagreement.*?</li>', page, flags=re.S)
    assert len(disputes) == 2
    english, hebrew = disputes
    assert "word matching" not in english
    assert f'title="{NOTE}"' in hebrew and "Hebrew: word matching</span>" in hebrew
