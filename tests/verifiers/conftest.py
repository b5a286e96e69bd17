"""Verifier page fixtures: tiny random verifiers packaged under GROUNDING_VERIFIERS_ROOT,
the process engine put back after each test, and a labeling project with labels."""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client

from grounding_app.annotations.allocation import next_assignment
from grounding_app.annotations.items import create_project, import_jsonl
from grounding_app.annotations.labels import ClaimState, submit
from grounding_app.annotations.models import LabelingProject
from tests.engine.verifier.tiny_models import NLI, bert_classifier, onnx_cache

API = "/v1/projects/p/locations/global/groundingConfigs/default_grounding_config:check"
BODY = {
    "answerCandidate": "the film was directed by the mayor. the tower stands north of the river.",
    "facts": [{"factText": "the film was directed by the mayor . it was released in the year ."}],
    "groundingSpec": {"enableClaimLevelScore": True},
}


@pytest.fixture(scope="module")
def verifiers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Path]]:
    """GROUNDING_VERIFIERS_ROOT holding a tiny NLI and a tiny binary classifier, packaged
    as a user packages them; ONNX graphs cached apart from var/."""
    root = tmp_path_factory.mktemp("verifiers")
    with onnx_cache(tmp_path_factory.mktemp("cache")):
        made = {
            "nli": bert_classifier(root / "tiny-nli", NLI),
            "binary": bert_classifier(root / "tiny-binary", {0: "LABEL_0", 1: "LABEL_1"}, seed=1),
        }
        for directory in made.values():
            call_command(
                "package_verifier", str(directory), "--languages", "en", stdout=io.StringIO()
            )
        yield {"root": root, **made}


@pytest.fixture(autouse=True)
def engine_state(
    fresh_checker: object, settings: Any, verifiers: dict[str, Path]
) -> Iterator[None]:
    """Each test starts with a new process checker, nothing loaded, with the verifiers
    root set; the checker before it comes back afterwards."""
    settings.GROUNDING_VERIFIERS_ROOT = verifiers["root"]
    yield


@pytest.fixture
def admin(make_user: Callable[..., Any]) -> Any:
    return make_user("admin", "ada-admin")


@pytest.fixture
def admin_client(admin: Any) -> Client:
    client = Client()
    client.force_login(admin)
    return client


def labeled_project(lines: list[dict[str, Any]], make_user: Callable[..., Any]) -> LabelingProject:
    """A labeling project of one item per grounding line, every claim labelled by one
    annotator as its line's label says (run the engine first: the fake one will do)."""
    lead = make_user("reviewer", "lena-lead")
    annotator = make_user("annotator", "ann")
    project = create_project(lead, name="Team labels", overlap=1, annotators=[annotator])
    import_jsonl(project, "".join(json.dumps(line) + "\n" for line in lines))
    while (assignment := next_assignment(project, annotator)) is not None:
        said = assignment.item.meta.get("reference_label")
        label = "supported" if said == 1 else "unsupported"
        submit(assignment, {c.pk: ClaimState(label) for c in assignment.item.claims.all()})
    return project
