"""`manage.py package_verifier`: a Hugging Face directory becomes a verifier the engine
loads, calibrated on the team's labels so that 0.6 is its best threshold there."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from grounding_app.formats.grounding_jsonl import read_examples
from grounding_lab.package_verifier import engine_optimum
from tests.engine.verifier.tiny_models import (
    NLI,
    POSITIONS,
    bert_classifier,
    judged_by,
    onnx_cache,
    write_labels,
)


@pytest.fixture(scope="module", autouse=True)
def cache(tmp_path_factory) -> Iterator[Path]:
    with onnx_cache(tmp_path_factory.mktemp("cache")) as graphs:
        yield graphs


@pytest.fixture(scope="module")
def nli(tmp_path_factory) -> Path:
    return bert_classifier(tmp_path_factory.mktemp("models") / "tiny-nli", NLI)


def package(*args: str) -> str:
    out = io.StringIO()
    call_command("package_verifier", *args, stdout=out)
    return out.getvalue()


def test_without_labels_it_is_packaged_uncalibrated_and_says_so(nli, tmp_path):
    out = tmp_path / "out"
    said = package(str(nli), "--languages", "en,he", "--out", str(out))
    assert "not calibrated" in said
    assert not (nli / "verifier.json").exists()  # the downloaded directory is untouched
    config = json.loads((out / "verifier.json").read_text())
    assert config["languages"] == ["en", "he"]
    assert config["max_length"] == POSITIONS  # max_position_embeddings, at most 512
    assert config["evidence_neighbours"] == 0
    assert (config["temperature"], config["bias"]) == (1.0, 0.0)
    assert config["calibrated_on"].startswith("nothing")
    assert config["name"] == "out"


def test_labels_fit_a_calibration_whose_best_threshold_is_the_default(nli, tmp_path):
    labels = write_labels(tmp_path / "labels.jsonl")
    out = tmp_path / "team-verifier"
    said = package(str(nli), "--languages", "en", "--fit", str(labels), "--out", str(out))
    config = json.loads((out / "verifier.json").read_text())
    assert (config["temperature"], config["bias"]) != (1.0, 0.0)
    assert "labels.jsonl" in config["calibrated_on"] and "-> 0.6" in config["threshold_fitted_on"]
    assert "temperature" in said
    examples = list(read_examples(labels))
    assert engine_optimum(out, examples) == pytest.approx(0.6, abs=0.05)

    # Loaded as a user loads it: the engine judges with it and scores are probabilities.
    engine, scores = judged_by(out)
    assert scores and all(s is not None and 0.0 <= s <= 1.0 for s in scores)
    assert engine.judge.verifier_id.startswith("team-verifier@sha256:")  # type: ignore[attr-defined]


def test_a_three_way_head_without_an_entailment_label_is_refused(tmp_path):
    generic = bert_classifier(tmp_path / "m", {0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"})
    with pytest.raises(CommandError, match="names no entailment class"):
        package(str(generic), "--languages", "en")


@pytest.mark.parametrize(
    ("setup", "args", "message"),
    [
        ("plain", ["--languages", "english"], "ISO 639-1"),
        ("no-config", ["--languages", "en"], "no config.json"),
        ("one-class", ["--languages", "en", "--fit", "LABELS"], "no source with both classes"),
        ("plain", ["--languages", "en", "--max-length", "1024"], "must be 128 to 512"),
    ],
)
def test_what_cannot_make_a_verifier_is_refused(nli, tmp_path, setup, args, message):
    directory = tmp_path / "empty" if setup == "no-config" else nli
    directory.mkdir(exist_ok=True)
    labels = tmp_path / "labels.jsonl"
    line = {"id": "1", "facts": [{"text": "the film"}], "claim": "the film", "label": 1}
    labels.write_text(json.dumps(line) + "\n")
    args = [str(labels) if a == "LABELS" else a for a in args]
    with pytest.raises(CommandError, match=message):
        package(str(directory), *args, "--out", str(tmp_path / "out"))
