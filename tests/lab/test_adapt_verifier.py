"""`manage.py adapt_verifier`: a verifier fine-tuned on a team's labels, held back by
document, calibrated and described; tiny random models built offline, a few steps."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from django.core.management import CommandError, call_command
from django.test import override_settings

from grounding_app.engine import (
    VERIFIER_DIR,
    CrossEncoderJudge,
    load_model,
)
from grounding_app.formats.grounding_jsonl import read_examples
from grounding_app.verifiers.adapt import calibrate, run, train
from grounding_app.verifiers.adapt.labels import document_key, split_by_document
from tests.engine.verifier.tiny_models import (
    NLI,
    NLI_OTHER_ORDER,
    bert_classifier,
    judged_by,
    onnx_cache,
    write_verifier_json,
)

SENTENCES = (
    "the film was directed by the mayor .",
    "the bridge was opened in the year the tower was built .",
    "the city was built by the river .",
    "the tower stands north of the river .",
    "the film won the prize .",
)


def label_lines(documents: int = 20, source: str = "team") -> list[dict[str, Any]]:
    """Three claims per document, two the document says and one it does not."""
    lines = []
    for d in range(documents):
        said = (SENTENCES[d % 5], SENTENCES[(d + 1) % 5])
        fact = f"{said[0]} {said[1]} it was in the year {d} ."
        claims = ((said[0], 1), (said[1], 1), (SENTENCES[(d + 2) % 5], 0))
        for k, (claim, label) in enumerate(claims):
            lines.append(
                {
                    "id": f"{d}-{k}",
                    "source": source,
                    "facts": [{"text": fact, "attributes": {"doc_id": f"doc-{d}"}}],
                    "claim": claim,
                    "label": label,
                }
            )
    return lines


def write_lines(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def adapt(*args: str) -> str:
    out = io.StringIO()
    call_command("adapt_verifier", *args, stdout=out)
    return out.getvalue()


@pytest.fixture(scope="module", autouse=True)
def cache(tmp_path_factory) -> Iterator[Path]:
    with onnx_cache(tmp_path_factory.mktemp("cache")) as graphs:
        yield graphs


@pytest.fixture(scope="module")
def start(tmp_path_factory) -> Path:
    directory = bert_classifier(tmp_path_factory.mktemp("models") / "team-start")
    write_verifier_json(directory, name="team-start", languages=["en", "he"])
    return directory


@pytest.fixture(scope="module")
def adapted(tmp_path_factory, start) -> dict[str, Any]:
    """One adaptation of the tiny one-logit model, with a replay file, an unlabelled
    line and a review-export line the model labelled (both to be skipped)."""
    root = tmp_path_factory.mktemp("run")
    lines = label_lines()
    lines.append({**lines[0], "id": "unlabelled", "label": None})
    lines.append({**lines[2], "id": "review:x#0.1", "meta": {"label_from": "model"}})
    labels = write_lines(root / "labels.jsonl", lines)
    train = write_lines(root / "train.jsonl", label_lines(8, source="frank"))
    out = root / "adapted"
    said = adapt(
        str(labels), "--out", str(out), "--from", str(start), "--train-file", str(train),
        "--hold-out", "0.3", "--replay", "12", "--calibration-prior", "0",
    )  # fmt: skip
    config = json.loads((out / "verifier.json").read_text())
    return {"out": out, "said": said, "config": config, "labels": labels}


def test_the_adapted_directory_loads_as_a_verifier_and_judges(adapted, start):
    out = adapted["out"]
    for name in ("config.json", "vocab.txt", "tokenizer_config.json"):  # as the start had them
        assert (out / name).read_bytes() == (start / name).read_bytes()
    assert (out / "model.safetensors").read_bytes() != (start / "model.safetensors").read_bytes()
    assert not list(out.parent.glob(".adapted-*"))  # the work directory is gone

    engine, scores = judged_by(out)
    assert scores and all(s is not None and 0.0 <= s <= 1.0 for s in scores)
    verifier = engine.judge.verifier_id
    assert verifier.startswith("adapted@sha256:")
    assert verifier.split(":")[1] != CrossEncoderJudge(start).verifier_id.split(":")[1]


def test_verifier_json_says_where_it_came_from_and_what_it_was_adapted_on(adapted, start):
    config = adapted["config"]
    assert config["name"] == "adapted"
    assert config["languages"] == ["en", "he"]  # copied from the start
    assert config["max_length"] == 128
    assert config["adapted_from"] == {
        "verifier": CrossEncoderJudge(start).verifier_id,
        "directory": str(start),
        "languages": ["en", "he"],
    }
    assert (
        "- **Languages**: en, he (as the start)." in (adapted["out"] / "MODEL_CARD.md").read_text()
    )
    on = config["adapted_on"]
    assert (on["labels"], on["supported"], on["unsupported"], on["documents"]) == (60, 40, 20, 20)
    assert (on["skipped_unlabelled"], on["skipped_model_verdicts"]) == (1, 1)
    assert on["trained_on"]["labels"] + on["held_back"]["labels"] == 60
    assert on["trained_on"]["documents"] + on["held_back"]["documents"] == 20
    assert on["held_back"]["share"] == 0.3
    assert (on["replay_pairs"], on["replay_file"]) == (12, "train.jsonl")
    training = config["training"]
    assert training["pairs"] == on["trained_on"]["labels"] + 12
    assert training["steps"] == training["planned_steps"] > 0
    assert training["window_tokens"] == 128 - 67
    assert "mixing in 12 original training pairs" in adapted["said"]


def test_the_calibration_makes_the_default_threshold_the_best_on_the_held_back(adapted):
    config = adapted["config"]
    assert (config["temperature"], config["bias"]) != (1.0, 0.0)
    assert "-> 0.6" in config["threshold_fitted_on"]
    before, after = (config["figures"]["held_back"][when] for when in ("before", "after"))
    assert before["balanced_accuracy"] < before["best_balanced_accuracy"]
    assert after["balanced_accuracy"] == after["best_balanced_accuracy"]


def test_with_no_prior_the_fitted_calibration_is_taken_whole(adapted):
    calibration = adapted["config"]["calibration"]
    fitted = calibration["fitted"]
    assert calibration["weight"] == 1.0
    assert adapted["config"]["temperature"] == pytest.approx(fitted["temperature"])
    assert "labels count 1.00 (held-back" in (adapted["out"] / "MODEL_CARD.md").read_text()


@pytest.mark.parametrize(
    ("held_back", "prior", "weight"),
    [(0, 200, 0.0), (40, 200, 40 / 240), (200, 200, 0.5), (400, 200, 400 / 600), (7, 0, 1.0)],
)
def test_the_fitted_calibration_weighs_by_the_labels_held_back(held_back, prior, weight):
    assert calibrate.trust(held_back, prior) == pytest.approx(weight)


def test_a_negative_prior_is_refused():
    with pytest.raises(run.AdaptError, match="calibration-prior"):
        calibrate.trust(10, -1)


@pytest.mark.parametrize(
    ("weight", "expected"),
    [(0.0, (2.0, -1.0)), (1.0, (0.5, 3.0)), (0.5, (1.0, 1.0)), (0.25, (2**0.5, 0.0))],
)
def test_blend_moves_the_temperature_on_a_log_scale_and_the_bias_linearly(weight, expected):
    temperature, bias = calibrate.blend((0.5, 3.0), (2.0, -1.0), weight)
    assert (temperature, bias) == pytest.approx(expected)


def _adapted_by_default(start: Path, root: Path, train: Path) -> dict[str, Any]:
    labels = write_lines(root / "labels.jsonl", label_lines())
    out = root / "adapted"
    adapt(
        str(labels), "--out", str(out), "--from", str(start), "--replay", "0",
        "--hold-out", "0.3", "--train-file", str(train),
    )  # fmt: skip
    return json.loads((out / "verifier.json").read_text()) | {
        "card": (out / "MODEL_CARD.md").read_text()
    }


def test_by_default_the_labels_weigh_against_anchors_scored_as_the_start_scores_them(
    start, tmp_path
):
    """30 held-back labels against the default prior of 200, with the training file at
    hand: its pairs (none trained on; replay is off) anchor the calibration."""
    train = write_lines(tmp_path / "train.jsonl", label_lines(8, source="frank"))
    config = _adapted_by_default(start, tmp_path, train)
    calibration = config["calibration"]
    held = config["adapted_on"]["held_back"]["labels"]
    assert calibration["prior_labels"] == 200
    assert calibration["weight"] == pytest.approx(held / (held + 200), abs=1e-4)
    assert 0 < calibration["anchors"] <= 400 and calibration["anchors_file"] == "train.jsonl"
    assert "anchors: " in config["calibrated_on"]
    assert f"labels count {calibration['weight']:.2f} (held-back labels" in config["card"]
    assert f"{calibration['anchors']} pairs of `train.jsonl` scored" in config["card"]


def test_without_the_training_file_the_fitted_calibration_is_blended_with_the_start(
    start, tmp_path
):
    config = _adapted_by_default(start, tmp_path, tmp_path / "absent.jsonl")
    calibration = config["calibration"]
    assert calibration["anchors"] == 0
    start_t, fitted_t = calibration["start"]["temperature"], calibration["fitted"]["temperature"]
    low, high = sorted((start_t, fitted_t))
    assert low <= config["temperature"] <= high
    assert abs(config["temperature"] - start_t) <= abs(fitted_t - start_t)
    assert "blended with the start's calibration" in config["calibrated_on"]
    assert "against the start's calibration" in config["card"]


def _platt(logits: np.ndarray, temperature: float, bias: float) -> np.ndarray:
    return 1 / (1 + np.exp(-(logits + bias) / temperature))


@pytest.fixture
def calibration_data() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(5)
    labels = (rng.random(60) < 0.5).astype(np.float64)
    logits = rng.normal(0, 1, 60) + 3 * labels + 2  # the labels want a large negative bias
    anchors = rng.normal(0, 3, 400)
    return {"logits": logits, "labels": labels, "anchors": anchors}


def test_anchored_calibration_at_weight_one_is_the_labels_alone(calibration_data):
    data = calibration_data
    alone = calibrate.calibrate(data["logits"], data["labels"])
    targets = _platt(data["anchors"], 2.0, 1.0)
    anchored = calibrate.anchored_calibration(
        data["logits"], data["labels"], data["anchors"], targets, 1.0
    )
    assert anchored == alone


def test_anchored_calibration_at_weight_zero_gives_back_the_anchors_scores(calibration_data):
    data = calibration_data
    targets = _platt(data["anchors"], 2.0, 1.0)
    temperature, bias = calibrate.anchored_calibration(
        data["logits"], data["labels"], data["anchors"], targets, 0.0
    )
    assert temperature == pytest.approx(2.0, rel=0.05) and bias == pytest.approx(1.0, abs=0.2)


def test_anchored_calibration_in_between_lies_between(calibration_data):
    data = calibration_data
    targets = _platt(data["anchors"], 2.0, 1.0)
    biases = [
        calibrate.anchored_calibration(
            data["logits"], data["labels"], data["anchors"], targets, weight
        )[1]
        for weight in (0.0, 0.2, 1.0)
    ]
    assert biases[2] < biases[1] < biases[0]


def test_the_card_and_verifier_json_carry_the_figures(adapted):
    config = adapted["config"]
    figures = config["figures"]["held_back"]
    card = (adapted["out"] / "MODEL_CARD.md").read_text()
    held = config["adapted_on"]["held_back"]["labels"]
    for when in ("before", "after"):
        assert figures[when]["labels"] == held
        assert 0.0 <= figures[when]["balanced_accuracy"] <= 1.0
        assert figures[when]["roc_auc"] is not None
    before, after = figures["before"], figures["after"]
    assert (
        f"| balanced accuracy at 0.6 | {before['balanced_accuracy']:.3f}"
        f" | {after['balanced_accuracy']:.3f} |" in card
    )
    assert f"| ROC AUC | {before['roc_auc']:.3f} | {after['roc_auc']:.3f} |" in card
    assert config["adapted_from"]["verifier"] in card
    assert f"{held} labels" in card and "12 pairs of `train.jsonl`" in card
    assert f"{after['balanced_accuracy']:.3f}" in adapted["said"]


def test_the_hold_out_is_by_document(adapted):
    examples = list(read_examples(adapted["labels"]))
    trained, held = split_by_document(examples, 0.3)
    assert trained and held
    assert not {document_key(e) for e in trained} & {document_key(e) for e in held}
    assert split_by_document(examples, 0.3) == (trained, held)  # the same every run
    everything, nothing = split_by_document(examples, 1e-9)
    assert (len(everything), nothing) == (len(examples), [])


def test_a_head_with_an_entailment_class_adapts_from_the_verifier_in_use(tmp_path):
    """The default start is GROUNDING_VERIFIER_DIR; a three-way NLI head trains through its
    entailment log-odds; without the training file no pairs are replayed, the time
    limit ends training after its first step, and --languages teaches it a language."""
    nli = bert_classifier(tmp_path / "nli", NLI)
    write_verifier_json(nli, name="nli")
    labels = write_lines(tmp_path / "labels.jsonl", label_lines())
    out = tmp_path / "nli-adapted"
    with override_settings(GROUNDING_VERIFIER_DIR=nli):
        said = adapt(
            str(labels), "--out", str(out), "--train-file", str(tmp_path / "absent.jsonl"),
            "--max-minutes", "0.000001", "--languages", "en,he",
        )  # fmt: skip
    config = json.loads((out / "verifier.json").read_text())
    assert config["adapted_from"]["directory"] == str(nli)
    assert (config["adapted_from"]["languages"], config["languages"]) == (["en"], ["en", "he"])
    assert "- **Languages**: en, he (the start read en)." in (out / "MODEL_CARD.md").read_text()
    assert "absent.jsonl is absent" in said and config["adapted_on"]["replay_pairs"] == 0
    assert config["training"]["steps"] == 1 < config["training"]["planned_steps"]
    assert "stopped by --max-minutes after 1 of" in (out / "MODEL_CARD.md").read_text()
    assert CrossEncoderJudge(out).verifier_id.startswith("nli-adapted@sha256:")


def test_a_three_way_head_learns_the_log_odds_of_entailment(tmp_path):
    """The loss is the engine's reading of the head: entailment against the others."""
    import torch
    from sentence_transformers.cross_encoder import CrossEncoder

    model = CrossEncoder(str(bert_classifier(tmp_path / "nli", NLI_OTHER_ORDER)))
    loss = train._supported_loss(model, 2, pos_weight=1.0)
    claims, evidence = ["the film won the prize ."], ["the film was directed by the mayor ."]
    value = loss([claims, evidence], torch.tensor([1.0]))
    logits = model.predict(list(zip(claims, evidence, strict=True)), convert_to_tensor=True)
    assert float(value.detach()) == pytest.approx(
        -float(torch.log_softmax(logits, -1)[0, 2]), rel=1e-4
    )


def test_the_bundled_layout_is_written_as_fp16_weights_alone(tmp_path):
    from safetensors import safe_open

    model = load_model(VERIFIER_DIR / "model.safetensors")
    train.write_model(model, VERIFIER_DIR, tmp_path / "out")
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["model.safetensors"]
    written_mode = (tmp_path / "out" / "model.safetensors").stat().st_mode
    assert written_mode == (VERIFIER_DIR / "model.safetensors").stat().st_mode
    with (
        safe_open(str(tmp_path / "out" / "model.safetensors"), "pt") as written,
        safe_open(str(VERIFIER_DIR / "model.safetensors"), "pt") as bundled,
    ):
        assert sorted(written.keys()) == sorted(bundled.keys())
        name = "classifier.weight"
        assert written.get_tensor(name).dtype == bundled.get_tensor(name).dtype
        assert written.get_tensor(name).equal(bundled.get_tensor(name))


def _held_back_supported_only() -> list[dict[str, Any]]:
    """Labels whose held-back documents (share 0.3) hold supported claims only."""
    lines = label_lines()
    examples = {e.id: e for e in read_examples_from(lines)}
    _, held = split_by_document(list(examples.values()), 0.3)
    held_ids = {e.id for e in held}
    return [line for line in lines if line["id"] not in held_ids or line["label"] == 1]


def read_examples_from(lines: list[dict[str, Any]]):
    from grounding_app.formats.grounding_jsonl import parse_example

    return [parse_example(json.dumps(line), "test") for line in lines]


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (label_lines(15), "45 labels .*too few"),
        ([line for line in label_lines(40) if line["label"] == 1], "one class only"),
        (
            [line for line in label_lines(30) if line["label"] == 1]
            + [line for line in label_lines(30) if line["label"] == 0][:9],
            "60 supported, 9 not.*too few",
        ),
        (_held_back_supported_only(), "held-back part .* no source with both classes"),
    ],
    ids=["too-few", "one-sided", "nine-unsupported", "held-back-one-class"],
)
def test_labels_that_cannot_adapt_a_verifier_are_refused_and_nothing_is_written(
    start, tmp_path, lines, message
):
    labels = write_lines(tmp_path / "labels.jsonl", lines)
    out = tmp_path / "sub" / "out"
    with pytest.raises(CommandError, match=message):
        adapt(str(labels), "--out", str(out), "--from", str(start), "--hold-out", "0.3")
    assert not (tmp_path / "sub").exists()


def test_a_run_that_fails_part_way_leaves_nothing(start, tmp_path, monkeypatch):
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("training failed")

    monkeypatch.setattr(run, "fine_tune", broken)
    labels = write_lines(tmp_path / "labels.jsonl", label_lines())
    with pytest.raises(RuntimeError, match="training failed"):
        adapt(
            str(labels), "--out", str(tmp_path / "out"), "--from", str(start),
            "--hold-out", "0.3", "--replay", "0",
        )  # fmt: skip
    assert sorted(p.name for p in tmp_path.iterdir()) == ["labels.jsonl"]


def test_an_existing_directory_is_not_overwritten(start, tmp_path):
    labels = write_lines(tmp_path / "labels.jsonl", label_lines())
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "keep.txt").write_text("mine")
    with pytest.raises(CommandError, match="not empty"):
        adapt(str(labels), "--out", str(tmp_path / "out"), "--from", str(start))
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["keep.txt"]
