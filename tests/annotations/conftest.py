"""Fixtures for the annotation queues: people, a project of imported items, labeling helpers."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from grounding_app.annotations.allocation import next_assignment
from grounding_app.annotations.items import create_project, import_jsonl
from grounding_app.annotations.labels import ClaimState, submit
from grounding_app.annotations.models import Assignment, ItemClaim, LabelingProject
from grounding_app.engine import GroundingEngine

FILM_FACTS = [
    {
        "text": "Titanic is a 1997 American epic romantic disaster movie. It was directed, "
        "written, and co-produced by James Cameron. It stars Kate Winslet and Leonardo "
        "DiCaprio.",
        "attributes": {"author": "Simple Wikipedia"},
    },
    {
        "text": "The maiden voyage of the RMS Titanic ultimately carried over 1,500 people to "
        "their death in the ice cold waters of the North Atlantic.",
        "attributes": {"author": "Rotten Tomatoes", "uri": "https://example.org/titanic"},
    },
]

CLAIMS = [
    "Titanic was directed by James Cameron.",
    "Here is what I found. Titanic stars Kate Winslet.",
    "Titanic was directed by Steven Spielberg in 1975.",
    "The RMS Titanic carried over 1,500 people to their death.",
]


def grounding_line(n: int, claim: str, label: int | None = 1) -> str:
    data: dict[str, Any] = {"id": f"ex-{n}", "source": "film", "facts": FILM_FACTS, "claim": claim}
    if label is not None:
        data["label"] = label
    return json.dumps(data)


def film_jsonl(count: int = 4) -> str:
    return "\n".join(grounding_line(n, CLAIMS[n % len(CLAIMS)]) for n in range(count)) + "\n"


@pytest.fixture
def lead(make_user: Callable[..., Any]) -> Any:
    return make_user("reviewer", "lena-lead")


@pytest.fixture
def annotators(make_user: Callable[..., Any]) -> list[Any]:
    return [make_user("annotator", name) for name in ("ann", "bob", "cat")]


@pytest.fixture
def make_project(
    fake_engine: GroundingEngine, lead: Any, annotators: list[Any]
) -> Callable[..., LabelingProject]:
    """A project of imported film items (engine verdicts from the fake engine)."""

    def make(
        count: int = 4, overlap: int = 2, blind: bool = False, extra: tuple[str, ...] = ()
    ) -> LabelingProject:
        project = create_project(
            lead,
            name="Film facts",
            instructions="Label each claim against the facts only.",
            extra_labels=extra,
            overlap=overlap,
            blind=blind,
            annotators=annotators,
        )
        import_jsonl(project, film_jsonl(count))
        return project

    return make


@pytest.fixture
def project(make_project: Callable[..., LabelingProject]) -> LabelingProject:
    return make_project()


S, U, N = "supported", "unsupported", "no_check"
# Claims in item order: "…James Cameron.", "Here is what I found.", "…Kate Winslet.",
# "…Spielberg in 1975.", "…1,500 people to their death."
LABELS = {
    "ann": [S, N, S, U, S],
    "bob": [S, N, S, U, U],
    "cat": [S, N, U, U, S],
}


@pytest.fixture
def labeled(
    make_project: Callable[..., LabelingProject], annotators: list[Any]
) -> tuple[LabelingProject, list[ItemClaim]]:
    """Four items, five claims, each labeled by all three annotators as in LABELS."""
    project = make_project(count=4, overlap=3)
    claims = list(
        ItemClaim.objects.filter(item__project=project).order_by("item__position", "index")
    )
    assert len(claims) == 5
    position = {claim.pk: n for n, claim in enumerate(claims)}
    for user in annotators:
        while (assignment := next_assignment(project, user)) is not None:
            states = {
                claim.pk: ClaimState(LABELS[user.username][position[claim.pk]], (0,))
                for claim in assignment.item.claims.all()
            }
            submit(assignment, states)
    return project, claims


def label_all(assignment: Assignment, label: str = "supported", cite: tuple[int, ...] = ()) -> None:
    """Submit one assignment with every claim given `label`."""
    states = {claim.pk: ClaimState(label, cite) for claim in assignment.item.claims.all()}
    submit(assignment, states)


def client_for(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client
