"""Adapt a verifier to a team's labels: fine-tune it, calibrate it, measure it, describe it.

Starts from a verifier directory (the bundled one, or a Hugging Face directory packaged
by `package_verifier`). A share of the labels is held back by document (the facts' text,
so no document sits on both sides): the adapted model is calibrated there so that 0.6 is
its best threshold, weighed against the start's calibration by how many labels were held
back, and both models are measured there through the engine. The rest is
trained on with sentence-transformers' `CrossEncoderTrainer`, mixed with a slice of the
original training pairs so that the model keeps what it knew. The result is a complete
verifier directory with a model card generated from the figures. Labels that cannot
support this (too few, one class, a held-back part without both classes) are refused
before anything is written.

The Verifier page's Celery job calls `adapt` (verifiers/services.py), as does the lab's
`manage.py adapt_verifier`.
"""

from __future__ import annotations

import json
import random
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from grounding_app.formats.grounding_jsonl import Example, read_examples
from grounding_app.verifiers.adapt.calibrate import (
    DEFAULT_THRESHOLD,
    anchored_calibration,
    bias_shift,
    blend,
    calibrate,
    trust,
)
from grounding_app.verifiers.adapt.card import model_card
from grounding_app.verifiers.adapt.labels import (
    Labels,
    check_labels,
    counts,
    documents,
    read_labels,
    split_by_document,
)
from grounding_app.verifiers.adapt.measure import (
    CLAIM_ROOM,
    Figures,
    engine_optimum,
    figures,
    pair_logits,
)
from grounding_app.verifiers.adapt.options import AdaptError, Options
from grounding_app.verifiers.adapt.train import (
    Training,
    anchor_pairs,
    fine_tune,
    label_pairs,
    replay_pairs,
    write_model,
)
from grounding_app.verifiers.adapt.windows import TrainPair

STALE_KEYS = ("packaged_from", "trained_on", "calibrated_on", "threshold_fitted_on")


@dataclass(frozen=True)
class Result:
    out: Path
    before: Figures
    after: Figures
    config: dict[str, Any] = field(repr=False)
    seconds: float


@dataclass(frozen=True)
class Plan:
    """What a run trains and calibrates on, once the labels and options passed."""

    labels: Labels
    trained: list[Example]
    held: list[Example]
    weight: float  # the held-back labels' weight against the start's calibration
    start_config: dict[str, Any]
    start_id: str
    max_length: int
    own: list[TrainPair]
    replay: list[TrainPair]
    pairs: list[TrainPair]
    anchors: list[TrainPair]


def _verifier_id(directory: Path) -> str:
    from grounding_app.engine import CrossEncoderJudge

    try:
        return CrossEncoderJudge(directory).verifier_id
    except RuntimeError as exc:
        raise AdaptError(f"{directory}: {exc}") from exc


# The share of a run each phase ends at, for `progress` (times of a MiniLM run on 2,000
# labels, rounded: training is most of it; the two measurements run the engine).
PHASES = {
    "reading labels": 0.05,
    "measuring the start": 0.15,
    "training": 0.8,
    "calibrating": 0.9,
    "measuring the adapted": 1.0,
}


def _phases(progress: Callable[[str, float], None] | None) -> Callable[..., None]:
    """`progress(phase, share of the whole run)` from (phase, share of that phase)."""
    names = list(PHASES)

    def report(phase: str, done: float = 0.0) -> None:
        if progress is not None:
            index = names.index(phase)
            low = PHASES[names[index - 1]] if index else 0.0
            progress(phase, low + (PHASES[phase] - low) * min(1.0, max(0.0, done)))

    return report


def _refuse_options(out: Path, start: Path, options: Options) -> None:
    """Every refusal of the options and directories, before anything is read or written."""
    if not 0 < options.hold_out < 1:
        raise AdaptError(f"--hold-out {options.hold_out}: a share between 0 and 1")
    if options.epochs <= 0 or (options.max_minutes is not None and options.max_minutes <= 0):
        raise AdaptError("--epochs and --max-minutes must be positive")
    if not (start / "verifier.json").is_file():
        raise AdaptError(
            f"{start} has no verifier.json: package it first (manage.py package_verifier)"
        )
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise AdaptError(f"{out} exists and is not empty: give a new directory")


def _read(labels_path: Path, start: Path, options: Options, say: Callable[[str], None]) -> Plan:
    """The labels read, split and checked, and the pairs to train on and anchor to."""
    from grounding_app.engine import load_tokenizer

    labels = read_labels(labels_path)
    trained, held = split_by_document(labels.examples, options.hold_out)
    weight = trust(len(held), options.calibration_prior)
    check_labels(labels, trained, held)
    start_config = json.loads((start / "verifier.json").read_text())
    start_id = _verifier_id(start)
    say(
        f"{labels_path.name}: {len(labels.examples)} labels on"
        f" {documents(labels.examples)} documents; skipped {labels.unlabelled} unlabelled"
        f" lines and {labels.model_verdicts} model verdicts (review-export lines no"
        f" reviewer judged)"
    )
    say(
        f"held back {len(held)} labels on {documents(held)} documents for calibration and"
        f" figures; training on {len(trained)} labels on {documents(trained)} documents"
    )
    tokenizer = load_tokenizer(start if (start / "config.json").is_file() else None)

    def count_tokens(text: str) -> int:
        return len(tokenizer.tokenize(text))

    max_length = int(start_config["max_length"])
    budget = max_length - CLAIM_ROOM
    own = label_pairs(trained, count_tokens, budget, options.seed)
    wanted = len(own) if options.replay is None else options.replay
    # Read once: replay and the calibration's anchors both draw from it.
    original = (
        list(read_examples(options.train_file))
        if (wanted > 0 or options.anchors > 0) and options.train_file.is_file()
        else []
    )
    if wanted and not options.train_file.is_file():
        say(f"{options.train_file} is absent: no original training pairs mixed in")
    replay = replay_pairs(original, wanted, count_tokens, budget, options.seed)
    if replay:
        say(f"mixing in {len(replay)} original training pairs from {options.train_file}")
    pairs = own + replay
    random.Random(options.seed).shuffle(pairs)
    trained_on = {(p.claim, p.evidence) for p in pairs}
    anchors = anchor_pairs(options, original, count_tokens, budget, trained_on)
    return Plan(
        labels,
        trained,
        held,
        weight,
        start_config,
        start_id,
        max_length,
        own,
        replay,
        pairs,
        anchors,
    )


def _calibrate(made: Path, start: Path, plan: Plan, options: Options) -> dict[str, Any]:
    """Fit the adapted model's temperature and bias on the held-back labels, weighed
    against the start (its scores on the anchors, else its calibration), then move the
    bias so that 0.6 is the engine's best threshold there; returns what was fitted."""
    from grounding_app.engine import CrossEncoderJudge

    judge = CrossEncoderJudge(made)
    held_logits, held_labels = pair_logits(judge, plan.held, options.seed)
    fitted_t, fitted_b = calibrate(held_logits, held_labels)
    config = plan.start_config
    start_t, start_b = float(config.get("temperature", 1.0)), float(config.get("bias", 0.0))
    if plan.anchors:
        claims = [p.claim for p in plan.anchors]
        evidence = [p.evidence for p in plan.anchors]
        start_logits = CrossEncoderJudge(start).logits(claims, evidence)
        targets = 1 / (1 + np.exp(-(start_logits + start_b) / start_t))
        temperature, bias = anchored_calibration(
            held_logits, held_labels, judge.logits(claims, evidence), targets, plan.weight
        )
    else:
        temperature, bias = blend((fitted_t, fitted_b), (start_t, start_b), plan.weight)
    _update(made, temperature=temperature, bias=bias)
    optimum = engine_optimum(made, plan.held)
    bias += plan.weight * bias_shift(optimum, temperature)
    _update(made, bias=bias)
    return {
        "pairs": len(held_labels),
        "fitted": {"temperature": fitted_t, "bias": fitted_b, "optimum": optimum},
        "start": {"temperature": start_t, "bias": start_b},
    }


def _described(
    labels_path: Path, start: Path, plan: Plan, options: Options, fitted: dict[str, Any]
) -> dict[str, Any]:
    """What verifier.json says of where the model came from and how it was calibrated."""
    anchors, held_pairs = len(plan.anchors), fitted["pairs"]
    optimum = fitted["fitted"]["optimum"]
    return {
        "calibrated_on": (
            f"{labels_path.name}, held back: {held_pairs} pairs; anchors:"
            f" {anchors} pairs of {options.train_file.name}"
            if anchors
            else f"{labels_path.name}, held back: {held_pairs} pairs, blended with"
            " the start's calibration"
        ),
        "threshold_fitted_on": (
            f"{labels_path.name}, held back: macro optimum {optimum:.3f} -> {DEFAULT_THRESHOLD}"
            f" (weight {plan.weight:.3f})"
        ),
        "calibration": {
            "fitted": fitted["fitted"],
            "start": fitted["start"],
            "prior_labels": options.calibration_prior,
            "weight": round(plan.weight, 4),
            "anchors": anchors,
            "anchors_file": options.train_file.name if anchors else None,
        },
        "adapted_from": {
            "verifier": plan.start_id,
            "directory": str(start),
            "languages": plan.start_config.get("languages", ["en"]),
        },
        "adapted_on": {
            "file": labels_path.name,
            **counts(plan.labels.examples),
            "skipped_unlabelled": plan.labels.unlabelled,
            "skipped_model_verdicts": plan.labels.model_verdicts,
            "trained_on": counts(plan.trained),
            "held_back": {**counts(plan.held), "share": options.hold_out},
            "replay_pairs": len(plan.replay),
            "replay_file": options.train_file.name if plan.replay else None,
        },
    }


def _trained(training: Training, plan: Plan, options: Options) -> dict[str, Any]:
    return {
        **asdict(training),
        "epochs": options.epochs,
        "batch_size": options.batch_size,
        "lr": options.lr,
        "max_length": plan.max_length,
        "window_tokens": plan.max_length - CLAIM_ROOM,
        "seed": options.seed,
        "max_minutes": options.max_minutes,
    }


def _update(made: Path, **fields: Any) -> dict[str, Any]:
    """Write `fields` into the verifier.json being made; returns the whole config."""
    path = made / "verifier.json"
    config = {**json.loads(path.read_text(encoding="utf-8")), **fields}
    path.write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    return config


def adapt(
    labels_path: Path,
    out: Path,
    start: Path,
    options: Options,
    say: Callable[[str], None] = print,
    progress: Callable[[str, float], None] | None = None,
) -> Result:
    """Adapt the verifier in `start` to the labels; write it to `out` (which must not
    exist or be empty). Every refusal comes before anything is written, and a run that
    fails part way leaves nothing behind. `progress` hears (phase, share of the whole
    run done) as it goes."""
    began = time.monotonic()
    phase = _phases(progress)
    phase("reading labels")
    _refuse_options(out, start, options)
    plan = _read(labels_path, start, options, say)
    say(f"before: {plan.start_id} on the held-back labels")
    phase("measuring the start")
    before = figures(start, plan.held)
    out.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{out.name}-", dir=out.parent))
    try:
        say(
            f"training on {len(plan.pairs)} pairs ({len(plan.own)} labels,"
            f" {len(plan.replay)} replayed)"
        )
        phase("training")
        model, training = fine_tune(
            start,
            work,
            plan.pairs,
            options,
            plan.max_length,
            on_step=lambda done, planned: phase("training", done / max(1, planned)),
        )
        made = work / "verifier"
        write_model(model, start, made)
        config = {k: v for k, v in plan.start_config.items() if k not in STALE_KEYS}
        config.update(name=options.name or out.resolve().name, temperature=1.0, bias=0.0)
        if options.languages is not None:
            config["languages"] = list(options.languages)
        (made / "verifier.json").write_text(json.dumps(config, indent=2) + "\n", "utf-8")
        say("calibrating on the held-back labels")
        phase("calibrating")
        fitted = _calibrate(made, start, plan, options)
        say("after: the adapted verifier on the held-back labels")
        phase("measuring the adapted")
        after = figures(made, plan.held)
        _update(made, **_described(labels_path, start, plan, options, fitted))
        held_back = {"before": asdict(before), "after": asdict(after)}
        _update(made, training=_trained(training, plan, options), figures={"held_back": held_back})
        seconds = time.monotonic() - began
        config = _update(made, minutes=round(seconds / 60, 1))
        (made / "MODEL_CARD.md").write_text(model_card(config), encoding="utf-8")
        if out.exists():
            out.rmdir()
        made.rename(out)
        phase("measuring the adapted", 1.0)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return Result(out, before, after, config, seconds)


def _auc(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def summary(result: Result) -> str:
    """One line on what the run did, the last the command and the Verifier page show."""
    before, after = result.before, result.after
    return (
        f"{result.out}: held-back balanced accuracy at 0.6"
        f" {before.balanced_accuracy:.3f} -> {after.balanced_accuracy:.3f}, ROC AUC"
        f" {_auc(before.roc_auc)} -> {_auc(after.roc_auc)}"
        f" ({result.seconds / 60:.1f} minutes); see {result.out / 'MODEL_CARD.md'}"
    )
