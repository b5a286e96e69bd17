"""A verifier brought as a Hugging Face directory, chosen by GROUNDING_VERIFIER_DIR, judges
API requests, and every response names the verifier that judged it."""

from __future__ import annotations

import hashlib
import io
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.core.management import call_command
from google.cloud import discoveryengine_v1 as de

from grounding_app.active_verifier.checker import checker, judge_name
from grounding_app.api.models import ApiKey
from grounding_app.engine import VERIFIER_DIR, GroundingEngine
from grounding_app.formats.check_grounding import response_to_json
from tests.api.test_discoveryengine_client import CONFIG, make_client
from tests.engine.verifier.tiny_models import NLI, bert_classifier, onnx_cache

URL = "/v1/projects/p/locations/global/groundingConfigs/default_grounding_config:check"
BODY = {
    "answerCandidate": "Here is what I found. the film was directed by the mayor.",
    "facts": [{"factText": "the film was directed by the mayor . it was released in the year ."}],
    "groundingSpec": {"enableClaimLevelScore": True},
}
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def verifiers(tmp_path_factory) -> Iterator[dict[str, Path]]:
    """Tiny NLI, binary and one-logit classifiers, packaged as a user packages them."""
    root = tmp_path_factory.mktemp("verifiers")
    with onnx_cache(tmp_path_factory.mktemp("cache")):
        made = {
            "one": bert_classifier(root / "tiny-one"),
            "nli": bert_classifier(root / "tiny-nli", NLI),
            "binary": bert_classifier(root / "tiny-binary", {0: "LABEL_0", 1: "LABEL_1"}),
        }
        for directory in made.values():
            call_command(
                "package_verifier", str(directory), "--languages", "en", stdout=io.StringIO()
            )
        yield made


@pytest.fixture
def configured(fresh_checker, settings):
    """Configure the verifier as a deployment does (the setting), on a new process
    checker, the one before it put back afterwards."""

    def configure(directory: Path) -> None:
        settings.GROUNDING_VERIFIER_DIR = directory
        fresh_checker.forget_followed()

    return configure


def weights_hash(directory: Path) -> str:
    return hashlib.sha256((directory / "model.safetensors").read_bytes()).hexdigest()[:12]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("kind", "name"), [("one", "tiny-one"), ("nli", "tiny-nli"), ("binary", "tiny-binary")]
)
def test_the_api_judges_with_the_configured_verifier_and_names_it(
    client, verifiers, configured, kind, name
):
    configured(verifiers[kind])
    assert judge_name(checker().directory()) == f"verifier:{verifiers[kind]}"
    response = client.post(
        URL,
        json.dumps(BODY),
        content_type="application/json",
        headers={"x-goog-api-key": ApiKey.issue("tests")[1]},
    )
    assert response.status_code == 200
    data = response.json()
    assert data["verifier"] == f"{name}@sha256:{weights_hash(verifiers[kind])}"
    checked = [c for c in data["claims"] if c["groundingCheckRequired"]]
    assert checked and all(0.0 <= c["score"] <= 1.0 for c in checked)
    assert {c["checkedBy"] for c in checked} == {"VERIFIER"}
    assert 0.0 <= data["supportScore"] <= 1.0


@pytest.mark.django_db
def test_the_bundled_verifier_is_named_too(client, configured):
    configured(VERIFIER_DIR)
    assert judge_name(checker().directory()) == "verifier"
    response = client.post(
        URL,
        json.dumps(BODY),
        content_type="application/json",
        headers={"x-goog-api-key": ApiKey.issue("tests")[1]},
    )
    assert response.json()["verifier"] == f"minilm-l6-v4@sha256:{weights_hash(VERIFIER_DIR)}"


@pytest.mark.django_db(transaction=True)
def test_the_official_client_parses_a_response_that_names_the_verifier(
    live_server, verifiers, configured, monkeypatch
):
    configured(verifiers["nli"])
    sent = []

    def spy(resp):
        sent.append(response_to_json(resp))
        return sent[-1]

    monkeypatch.setattr("grounding_app.api.views.response_to_json", spy)
    with make_client(live_server.url, ApiKey.issue("client")[1]) as client:
        response = client.check_grounding(
            request=de.CheckGroundingRequest(
                grounding_config=CONFIG,
                answer_candidate=BODY["answerCandidate"],
                facts=[de.GroundingFact(fact_text=BODY["facts"][0]["factText"])],
                grounding_spec=de.CheckGroundingSpec(enable_claim_level_score=True),
            )
        )
    assert [c.claim_text for c in response.claims] == [
        "Here is what I found.",
        "the film was directed by the mayor.",
    ]
    assert 0.0 <= response.claims[1].score <= 1.0
    assert sent[0]["verifier"].startswith("tiny-nli@sha256:")


def test_a_verifier_dir_that_is_no_directory_stops_start_up(tmp_path):
    env = {
        **os.environ,
        "SECRET_KEY": "k",
        "GROUNDING_VERIFIER_DIR": str(tmp_path / "missing"),
    }
    result = subprocess.run(
        [sys.executable, "-c", "import grounding_app.settings"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0
    assert "GROUNDING_VERIFIER_DIR" in result.stderr and "is not a directory" in result.stderr


@pytest.mark.django_db
def test_another_verifier_drops_the_engine_built_with_the_old_one(
    configured, verifiers, fresh_checker, monkeypatch
):
    built = []

    def build(cls, name):
        built.append(name)
        return object()

    monkeypatch.setattr(GroundingEngine, "default", classmethod(build))
    configured(VERIFIER_DIR)
    first = fresh_checker.engine()
    configured(VERIFIER_DIR)
    assert fresh_checker.engine() is first  # the same verifier: the engine stays
    configured(verifiers["nli"])
    assert fresh_checker.engine() is not first and fresh_checker.loaded() is not first
    assert built == ["verifier", f"verifier:{verifiers['nli']}"]


@pytest.mark.django_db
def test_a_response_judged_by_no_verifier_names_none(client, fake_engine):
    response = client.post(
        URL,
        json.dumps(BODY),
        content_type="application/json",
        headers={"x-goog-api-key": ApiKey.issue("tests")[1]},
    )
    assert response.status_code == 200
    assert "verifier" not in response.json()
