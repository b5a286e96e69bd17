"""Markdown where answers and claims are listed (issue 44, item 13): the agreement page's
disputed claims read as the answer does, a project's instructions are rendered as
sanitised Markdown, a batch job's worst answers are one line of plain text; hostile
input (a script tag, a javascript: link, raw HTML) stays inert everywhere."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from grounding_app.annotations.allocation import next_assignment
from grounding_app.annotations.items import create_project, import_jsonl
from grounding_app.annotations.labels import ClaimState, submit
from grounding_app.batch import intake, running
from grounding_app.engine import GroundingEngine

pytestmark = pytest.mark.django_db

HOSTILE = (
    "**Titanic** was directed by [James Cameron](https://example.org/jc) "
    "[not a link](javascript:alert(1)) <script>window.__xss=1</script>"
    "<img src=x onerror=alert(1)>."
)
INSTRUCTIONS = (
    "Label **each** claim:\n\n"
    "1. against the facts only;\n"
    "2. see [the guide](https://example.org/guide) or [this](javascript:alert(1)).\n\n"
    "<script>alert(1)</script>"
)
FACTS = [{"text": "Titanic was directed by James Cameron."}]


def client_for(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _inert(page: str) -> None:
    assert "<script>window" not in page and "<script>alert" not in page
    assert 'href="javascript:' not in page and "<img" not in page


def _disputed(lead: Any, annotators: list[Any]) -> Any:
    project = create_project(
        lead, name="Hostile", instructions=INSTRUCTIONS, overlap=2, annotators=annotators[:2]
    )
    import_jsonl(project, json.dumps({"id": "x", "facts": FACTS, "claim": HOSTILE}) + "\n")
    for user, label in zip(annotators[:2], ("supported", "unsupported"), strict=True):
        assignment = next_assignment(project, user)
        assert assignment is not None
        submit(assignment, {c.pk: ClaimState(label) for c in assignment.item.claims.all()})
    return project


def test_the_agreement_page_shows_a_disputed_claim_as_the_answer_reads(
    fake_engine: GroundingEngine, lead: Any, annotators: list[Any]
) -> None:
    project = _disputed(lead, annotators)
    page = client_for(lead).get(f"/annotations/{project.pk}/agreement/").content.decode()
    text = re.search(r'<p class="dis-text"[^>]*>(.*?)</p>', page, flags=re.S)
    assert text is not None
    assert "<strong>Titanic</strong>" in text[1] and "**" not in text[1]
    assert "[James Cameron](" not in text[1] and "James Cameron" in text[1]
    _inert(page)


@pytest.mark.parametrize("where", ["project", "label"])
def test_instructions_are_sanitised_markdown(
    fake_engine: GroundingEngine, lead: Any, annotators: list[Any], where: str
) -> None:
    project = _disputed(lead, annotators)
    if where == "project":
        page = client_for(lead).get(project.get_absolute_url()).content.decode()
    else:
        other = create_project(
            lead, name="To label", instructions=INSTRUCTIONS, annotators=[annotators[2]]
        )
        import_jsonl(other, json.dumps({"id": "y", "facts": FACTS, "claim": "A claim."}) + "\n")
        assignment = next_assignment(other, annotators[2])
        assert assignment is not None
        page = client_for(annotators[2]).get(assignment.get_absolute_url()).content.decode()
    box = re.search(r'<div class="instructions-text[^>]*>(.*?)</div>', page, flags=re.S)
    assert box is not None
    assert "<strong>each</strong>" in box[1] and "<ol>" in box[1]
    assert '<a href="https://example.org/guide" rel="noopener noreferrer nofollow">' in box[1]
    assert "**" not in box[1] and "&lt;script&gt;" in box[1]
    _inert(page)


def test_the_worst_answers_are_one_line_of_plain_text(
    fake_engine: GroundingEngine, make_user: Callable[..., Any]
) -> None:
    user = make_user("reviewer", "rhea")
    answer = "## Heading\n\n- " + HOSTILE + "\n\n```\nprint('code')\n```"
    line = json.dumps({"id": "1", "facts": FACTS, "claim": answer})
    job = intake.create_job((line + "\n").encode(), name="hostile.jsonl", send=False)
    for chunk in job.chunks.all():
        running.run_chunk(chunk.pk, worker="test")
    page = client_for(user).get(job.get_absolute_url()).content.decode()
    cell = re.search(
        r'<section class="card" aria-label="Worst answers".*?<bdi dir="(\w+)">(.*?)'
        r"</bdi>",
        page,
        flags=re.S,
    )
    assert cell is not None
    assert cell[1] == "ltr"
    assert cell[2].startswith("Heading Titanic was directed by James Cameron")
    assert "##" not in cell[2] and "**" not in cell[2] and "[James Cameron](" not in cell[2]
    assert "&lt;script&gt;" in cell[2]
    _inert(page)
