"""Adapt a verifier to a team's labels: fine-tune it, calibrate it, measure it, describe it.

    manage.py adapt_verifier LABELS.jsonl --out DIR [--from VERIFIER_DIR] [--hold-out 0.2]

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
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import random
import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from grounding_app.formats.grounding_jsonl import (
    DatasetError,
    Example,
    parse_example,
    read_examples,
)
from grounding_lab import windows
from grounding_lab.package_verifier import has_a_source_with_both_classes
from grounding_lab.windows import TrainPair

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "grounding"
MIN_LABELS = 50
MIN_PER_CLASS = 10
# Room for the claim (at most 64 tokens) and the three special tokens, as
# `train_long_verifier` leaves it: windows are cut to max_length minus this.
CLAIM_ROOM = 67
WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")
# What describes the start, not the adapted model: not copied into the new directory.
NOT_COPIED = frozenset({*WEIGHT_FILES, "verifier.json", "MODEL_CARD.md"})
STALE_KEYS = ("packaged_from", "trained_on", "calibrated_on", "threshold_fitted_on")


class AdaptError(ValueError):
    """The labels or the options cannot make an adapted verifier; nothing was written."""


@dataclass(frozen=True)
class Labels:
    examples: list[Example]
    unlabelled: int  # lines without a label: teach nothing
    model_verdicts: int  # review-export lines labelled by the model, not a reviewer


@dataclass(frozen=True)
class Options:
    hold_out: float = 0.2
    replay: int | None = None  # None: as many pairs as the labels trained on
    epochs: float = 1.0
    max_minutes: float | None = None
    batch_size: int = 16
    lr: float = 3e-5
    seed: int = 13
    name: str | None = None
    # The languages the adapted model reads; None: the start's. Adapting on labels in a
    # language the start does not read is how a team teaches it one (its claims are
    # judged by word matching until the verifier declares the language).
    languages: tuple[str, ...] | None = None
    # How many held-back labels weigh as much as what the start said before: with n held
    # back, the labels count n / (n + prior) in the calibration and in the move of the
    # best threshold to 0.6, and the anchors (below) the rest. Fine-tuning on one domain
    # and calibrating on a few dozen of its labels move every other domain's scores
    # too; 0 trusts the labels alone.
    calibration_prior: int = 200
    # Pairs of the training file (not trained on here) that the start scores and the
    # adapted model's calibration is asked to score alike: they hold its scores on
    # everything else where they were. Without the file, the calibration fitted on the
    # labels is blended with the start's instead.
    anchors: int = 400
    train_file: Path = DATA / "train.jsonl"
    bf16: bool | None = None  # None: when the CPU has bfloat16 instructions


@dataclass(frozen=True)
class Figures:
    """Through the engine on the held-back labels; each source weighs the same."""

    labels: int
    balanced_accuracy: float  # at the default threshold, 0.6
    best_balanced_accuracy: float
    best_threshold: float
    roc_auc: float | None
    # Ten equal-width bins of the engine's scores (metrics.ReliabilityBin as dicts), all
    # sources together: the Verifier page draws the reliability diagram from them.
    reliability: list[dict[str, float]] = field(default_factory=list)


@dataclass(frozen=True)
class Training:
    pairs: int
    steps: int
    planned_steps: int
    seconds: float
    precision: str


@dataclass(frozen=True)
class Result:
    out: Path
    before: Figures
    after: Figures
    config: dict[str, Any] = field(repr=False)
    seconds: float


def read_labels(path: Path) -> Labels:
    """The labelled lines of a shared-schema file (the labeling export, the review export,
    the training files). A review-export line whose `meta.label_from` is "model" carries
    the model's own verdict, not a person's: training on it would teach the model itself."""
    examples: list[Example] = []
    unlabelled = model_verdicts = 0
    try:
        with path.open(encoding="utf-8") as handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                example = parse_example(line, f"{path}:{number}")
                if example.label is None:
                    unlabelled += 1
                    continue
                meta = json.loads(line).get("meta")
                if isinstance(meta, dict) and meta.get("label_from") == "model":
                    model_verdicts += 1
                    continue
                examples.append(example)
    except (OSError, UnicodeDecodeError, DatasetError) as exc:
        raise AdaptError(str(exc)) from exc
    return Labels(examples, unlabelled, model_verdicts)


def document_key(example: Example) -> str:
    """The document an example is about: a hash of its facts' text."""
    text = "\n".join(fact.text for fact in example.facts)
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()


def split_by_document(
    examples: Sequence[Example], share: float
) -> tuple[list[Example], list[Example]]:
    """(trained on, held back): a document is held back when its hash, read as a number
    in [0, 1), is below `share`, so every label of a document falls on one side and the
    same file splits the same way every run."""
    trained: list[Example] = []
    held: list[Example] = []
    for example in examples:
        position = int(document_key(example)[:16], 16) / 16**16
        (held if position < share else trained).append(example)
    return trained, held


def documents(examples: Sequence[Example]) -> int:
    return len({document_key(e) for e in examples})


def check_labels(labels: Labels, trained: Sequence[Example], held: Sequence[Example]) -> None:
    """Refuse labels that cannot train, calibrate and measure a verifier."""
    examples = labels.examples
    supported = sum(e.label == 1 for e in examples)
    counts = f"{len(examples)} labels ({supported} supported, {len(examples) - supported} not)"
    if supported in (0, len(examples)):
        raise AdaptError(f"{counts}: one class only; adapting needs supported and unsupported")
    if len(examples) < MIN_LABELS or min(supported, len(examples) - supported) < MIN_PER_CLASS:
        raise AdaptError(
            f"{counts}: too few; adapting needs at least {MIN_LABELS}, with at least"
            f" {MIN_PER_CLASS} of each class"
        )
    for part, name in ((held, "held-back"), (trained, "trained-on")):
        if not has_a_source_with_both_classes(part):
            raise AdaptError(
                f"the {name} part ({len(part)} labels on {documents(part)} documents) has no"
                " source with both classes: label more documents, or change --hold-out"
            )


def figures(directory: Path, examples: Sequence[Example]) -> Figures:
    from grounding_app.engine import DEFAULT_CITATION_THRESHOLD
    from grounding_app.metrics import (
        macro_balanced_accuracy,
        macro_best_threshold,
        reliability_bins,
        roc_auc,
    )
    from grounding_lab.package_verifier import engine_scores

    groups = list(engine_scores(directory, examples).values())
    best, top = macro_best_threshold(groups)
    aucs = [a for ys, ps in groups if (a := roc_auc(ys, ps)) is not None]
    bins = reliability_bins(
        [y for ys, _ in groups for y in ys], [p for _, ps in groups for p in ps]
    )
    return Figures(
        labels=sum(len(ys) for ys, _ in groups),
        balanced_accuracy=macro_balanced_accuracy(groups, DEFAULT_CITATION_THRESHOLD),
        best_balanced_accuracy=top,
        best_threshold=best,
        roc_auc=sum(aucs) / len(aucs) if aucs else None,
        reliability=[asdict(b) for b in bins],
    )


def bf16_supported() -> bool:
    """bfloat16 autocast pays on CPUs with AVX-512 BF16 or AMX (about 30 % faster,
    `train_long_verifier --bf16`); elsewhere it is emulated and slower."""
    import torch

    cpu = torch.cpu
    checks = ("_is_avx512_bf16_supported", "_is_amx_tile_supported")
    return any(bool(getattr(cpu, name, lambda: False)()) for name in checks)


def label_pairs(
    examples: Sequence[Example], count_tokens: Callable[[str], int], budget: int, seed: int
) -> list[TrainPair]:
    """One pair per label: the claim and its best evidence window, as the verifier was
    trained on (`windows.build_pairs`), with no generated pairs: the team's own."""
    per_source = {e.source: len(examples) for e in examples}
    pairs = windows.build_pairs(examples, count_tokens, budget, seed, per_source=per_source)
    return [p for p in pairs if p.kind == "original"]


def replay_pairs(
    examples: Sequence[Example],
    n: int,
    count_tokens: Callable[[str], int],
    budget: int,
    seed: int,
) -> list[TrainPair]:
    """`n` pairs of the training examples drawn as the shipped verifier's training drew
    them (`windows.build_pairs`: sources weighted alike, generated negatives, a quarter
    padded), from a share of each source just large enough, so the whole training file
    is not cut into windows."""
    if n <= 0 or not examples:
        return []
    weights = {e.source: windows.SOURCE_PAIRS.get(e.source, 300) for e in examples}
    total = sum(weights.values())
    caps = {source: math.ceil(weight * n / total) for source, weight in weights.items()}
    pairs = windows.build_pairs(examples, count_tokens, budget, seed, per_source=caps, padded=0.25)
    return pairs[:n]


def _supported_loss(model: Any, index: int | None, pos_weight: float) -> Any:
    """Binary cross-entropy on what the engine reads: the logit itself, or for a two- or
    three-way head the entailment class's log-odds against the others."""
    import torch
    from sentence_transformers.util import batch_to_device

    from grounding_app.engine import supported_log_odds

    class SupportedLoss(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model
            self.bce = torch.nn.BCEWithLogitsLoss(pos_weight=torch.tensor(pos_weight))

        def forward(
            self, inputs: list[list[str]], labels: Any, prompt: str | None = None, **_: Any
        ) -> Any:
            features = self.model.preprocess(list(zip(inputs[0], inputs[1], strict=True)))
            scores = self.model(batch_to_device(features, self.model.device))["scores"]
            logits = supported_log_odds(scores, index).reshape(-1)
            return self.bce(logits, labels.float().reshape(-1))

    return SupportedLoss()


def _stop_after(seconds: float | None) -> Any:
    """A trainer callback that ends training once `seconds` have passed (the model
    trained so far is kept), and remembers whether it did."""
    from transformers import TrainerCallback

    class StopAfter(TrainerCallback):
        def __init__(self) -> None:
            self.deadline = None if seconds is None else time.monotonic() + seconds
            self.stopped = False

        def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            if self.deadline is not None and time.monotonic() >= self.deadline:
                control.should_training_stop = True
                self.stopped = True

    return StopAfter()


def _report_steps(on_step: Callable[[int, int], None]) -> Any:
    """A trainer callback that tells `on_step` (steps done, steps planned) after each step."""
    from transformers import TrainerCallback

    class ReportSteps(TrainerCallback):
        def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            on_step(state.global_step, state.max_steps)

    return ReportSteps()


def fine_tune(
    start: Path,
    work: Path,
    pairs: Sequence[TrainPair],
    options: Options,
    max_length: int,
    on_step: Callable[[int, int], None] | None = None,
) -> tuple[Any, Training]:
    """The start's model trained on `pairs` (CPU, the trainer's progress bar); returns the
    Hugging Face model and what the training was. `on_step` hears of every step (the
    Verifier page's progress bar)."""
    import torch
    from datasets import Dataset
    from sentence_transformers.cross_encoder import (
        CrossEncoder,
        CrossEncoderTrainer,
        CrossEncoderTrainingArguments,
    )
    from transformers import AutoConfig

    from grounding_app.engine import entailment_index, load_model, load_tokenizer

    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    torch.manual_seed(options.seed)
    if (start / "config.json").is_file():
        init, config = start, AutoConfig.from_pretrained(str(start), local_files_only=True)
        index = entailment_index(config.id2label, start)
    else:  # the bundled layout: MiniLM weights alone, the bundled tokenizer
        init, index = work / "init", None
        load_model(_weights(start)).save_pretrained(str(init))
        load_tokenizer().save_pretrained(str(init))
    model = CrossEncoder(str(init), max_length=max_length, local_files_only=True)
    positives = sum(p.label for p in pairs)
    loss = _supported_loss(model, index, (len(pairs) - positives) / max(1, positives))
    bf16 = bf16_supported() if options.bf16 is None else options.bf16
    stop = _stop_after(None if options.max_minutes is None else options.max_minutes * 60)
    arguments = CrossEncoderTrainingArguments(
        output_dir=str(work / "checkpoints"),
        num_train_epochs=options.epochs,
        per_device_train_batch_size=options.batch_size,
        learning_rate=options.lr,
        warmup_steps=0.05,  # a float: the share of all steps (Transformers 5)
        weight_decay=0.01,
        save_strategy="no",
        logging_steps=20,
        seed=options.seed,
        report_to="none",
        use_cpu=True,
        bf16=bf16,
    )
    dataset = Dataset.from_dict(
        {
            "claim": [p.claim for p in pairs],
            "evidence": [p.evidence for p in pairs],
            "label": [float(p.label) for p in pairs],
        }
    )
    callbacks = [stop] if on_step is None else [stop, _report_steps(on_step)]
    trainer = CrossEncoderTrainer(
        model=model, args=arguments, train_dataset=dataset, loss=loss, callbacks=callbacks
    )
    started = time.monotonic()
    trainer.train()
    training = Training(
        pairs=len(pairs),
        steps=trainer.state.global_step,
        planned_steps=trainer.state.max_steps,
        seconds=time.monotonic() - started,
        precision="bfloat16 autocast" if bf16 else "float32",
    )
    return model.model, training


def _weights(directory: Path) -> Path:
    for name in WEIGHT_FILES:
        if (directory / name).is_file():
            return directory / name
    raise AdaptError(f"{directory}: no model weights ({' or '.join(WEIGHT_FILES)})")


def write_model(model: Any, start: Path, out: Path) -> None:
    """The weights laid out as the start's were: a Hugging Face directory keeps its own
    config and tokenizer files as they came (float32 safetensors beside them); the
    bundled layout is fp16 MiniLM weights alone."""
    from safetensors.torch import save_file

    out.mkdir(parents=True, exist_ok=True)
    state = model.state_dict()
    if (start / "config.json").is_file():
        for path in start.iterdir():
            if path.is_file() and path.name not in NOT_COPIED:
                shutil.copy2(path, out / path.name)
        tensors = {k: v.float().contiguous() for k, v in state.items()}
    else:
        tensors = {k: v.half().contiguous() for k, v in state.items()}
    target = out / "model.safetensors"
    save_file(tensors, str(target), metadata={"format": "pt"})
    # safetensors writes owner-only; a server running as another user must read it too.
    shutil.copymode(_weights(start), target)


def _verifier_id(directory: Path) -> str:
    from grounding_app.engine import CrossEncoderJudge

    try:
        return CrossEncoderJudge(directory).verifier_id
    except RuntimeError as exc:
        raise AdaptError(f"{directory}: {exc}") from exc


def _counts(examples: Sequence[Example]) -> dict[str, int]:
    supported = sum(e.label == 1 for e in examples)
    return {
        "labels": len(examples),
        "supported": supported,
        "unsupported": len(examples) - supported,
        "documents": documents(examples),
    }


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
    from grounding_app.engine import CrossEncoderJudge, load_tokenizer
    from grounding_lab.fit_threshold import DEFAULT_THRESHOLD, bias_shift
    from grounding_lab.package_verifier import engine_optimum, pair_logits
    from grounding_lab.train_verifier import calibrate

    began = time.monotonic()
    phase = _phases(progress)
    phase("reading labels")
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
    anchors = anchor_pairs(
        options, original, count_tokens, budget, {(p.claim, p.evidence) for p in pairs}
    )

    say(f"before: {start_id} on the held-back labels")
    phase("measuring the start")
    before = figures(start, held)
    out.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{out.name}-", dir=out.parent))
    try:
        say(f"training on {len(pairs)} pairs ({len(own)} labels, {len(replay)} replayed)")
        phase("training")
        model, training = fine_tune(
            start,
            work,
            pairs,
            options,
            max_length,
            on_step=lambda done, planned: phase("training", done / max(1, planned)),
        )
        made = work / "verifier"
        write_model(model, start, made)
        config = {k: v for k, v in start_config.items() if k not in STALE_KEYS}
        config.update(name=options.name or out.resolve().name, temperature=1.0, bias=0.0)
        if options.languages is not None:
            config["languages"] = list(options.languages)
        _write_json(made / "verifier.json", config)
        say("calibrating on the held-back labels")
        phase("calibrating")
        judge = CrossEncoderJudge(made)
        held_logits, held_labels = pair_logits(judge, held, options.seed)
        fitted_t, fitted_b = calibrate(held_logits, held_labels)
        start_calibration = (
            float(start_config.get("temperature", 1.0)),
            float(start_config.get("bias", 0.0)),
        )
        if anchors:
            claims, evidence = [p.claim for p in anchors], [p.evidence for p in anchors]
            start_logits = CrossEncoderJudge(start).logits(claims, evidence)
            targets = 1 / (
                1 + np.exp(-(start_logits + start_calibration[1]) / start_calibration[0])
            )
            temperature, bias = anchored_calibration(
                held_logits, held_labels, judge.logits(claims, evidence), targets, weight
            )
        else:
            temperature, bias = blend((fitted_t, fitted_b), start_calibration, weight)
        config.update(temperature=temperature, bias=bias)
        _write_json(made / "verifier.json", config)
        optimum = engine_optimum(made, held)
        config["bias"] = bias + weight * bias_shift(optimum, temperature)
        _write_json(made / "verifier.json", config)
        say("after: the adapted verifier on the held-back labels")
        phase("measuring the adapted")
        after = figures(made, held)
        config.update(
            calibrated_on=(
                f"{labels_path.name}, held back: {len(held_labels)} pairs; anchors:"
                f" {len(anchors)} pairs of {options.train_file.name}"
                if anchors
                else f"{labels_path.name}, held back: {len(held_labels)} pairs, blended with"
                " the start's calibration"
            ),
            threshold_fitted_on=(
                f"{labels_path.name}, held back: macro optimum {optimum:.3f} -> {DEFAULT_THRESHOLD}"
                f" (weight {weight:.3f})"
            ),
            calibration={
                "fitted": {"temperature": fitted_t, "bias": fitted_b, "optimum": optimum},
                "start": {"temperature": start_calibration[0], "bias": start_calibration[1]},
                "prior_labels": options.calibration_prior,
                "weight": round(weight, 4),
                "anchors": len(anchors),
                "anchors_file": options.train_file.name if anchors else None,
            },
            adapted_from={
                "verifier": start_id,
                "directory": str(start),
                "languages": start_config.get("languages", ["en"]),
            },
            adapted_on={
                "file": labels_path.name,
                **_counts(labels.examples),
                "skipped_unlabelled": labels.unlabelled,
                "skipped_model_verdicts": labels.model_verdicts,
                "trained_on": _counts(trained),
                "held_back": {**_counts(held), "share": options.hold_out},
                "replay_pairs": len(replay),
                "replay_file": options.train_file.name if replay else None,
            },
            training={
                **asdict(training),
                "epochs": options.epochs,
                "batch_size": options.batch_size,
                "lr": options.lr,
                "max_length": max_length,
                "window_tokens": budget,
                "seed": options.seed,
                "max_minutes": options.max_minutes,
            },
            figures={"held_back": {"before": asdict(before), "after": asdict(after)}},
        )
        seconds = time.monotonic() - began
        config["minutes"] = round(seconds / 60, 1)
        _write_json(made / "verifier.json", config)
        (made / "MODEL_CARD.md").write_text(model_card(config), encoding="utf-8")
        if out.exists():
            out.rmdir()
        made.rename(out)
        phase("measuring the adapted", 1.0)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return Result(out, before, after, config, seconds)


def anchor_pairs(
    options: Options,
    original: Sequence[Example],
    count_tokens: Callable[[str], int],
    budget: int,
    trained: set[tuple[str, str]],
) -> list[TrainPair]:
    """At most `options.anchors` pairs of the training examples drawn as replay is
    (another seed), none trained on in this run; none without training examples or when
    none are asked for."""
    drawn = replay_pairs(original, 2 * options.anchors, count_tokens, budget, options.seed + 1)
    return [p for p in drawn if (p.claim, p.evidence) not in trained][: options.anchors]


def anchored_calibration(
    logits: np.ndarray,
    labels: np.ndarray,
    anchor_logits: np.ndarray,
    anchor_targets: np.ndarray,
    weight: float,
) -> tuple[float, float]:
    """(temperature, bias) fitted on the held-back labels (class-balanced, counting
    `weight` in all) and on the anchors' scores as the start gave them (soft targets,
    counting the rest)."""
    from grounding_lab.train_verifier import balanced_weights, calibrate

    held = balanced_weights(labels) * weight
    anchored = np.full(len(anchor_logits), (1 - weight) / max(len(anchor_logits), 1))
    return calibrate(
        np.concatenate([logits, anchor_logits]),
        np.concatenate([labels, anchor_targets]),
        np.concatenate([held, anchored]),
    )


def trust(held_back: int, prior: int) -> float:
    """The weight of a calibration fitted on `held_back` labels against the start's."""
    if prior < 0:
        raise AdaptError(f"--calibration-prior {prior}: a count of labels, 0 or more")
    return 1.0 if prior == 0 else held_back / (held_back + prior)


def blend(
    fitted: tuple[float, float], start: tuple[float, float], weight: float
) -> tuple[float, float]:
    """(temperature, bias) between the start's and the fitted: the temperature on a log
    scale (it divides), the bias linearly."""
    (t_fit, b_fit), (t_start, b_start) = fitted, start
    temperature = math.exp(weight * math.log(t_fit) + (1 - weight) * math.log(t_start))
    return temperature, weight * b_fit + (1 - weight) * b_start


def _write_json(path: Path, data: dict[str, Any]) -> None:
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def _figure(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def model_card(config: dict[str, Any]) -> str:
    """The adapted verifier's card, every figure from its verifier.json."""
    source = config["adapted_from"]
    on = config["adapted_on"]
    training = config["training"]
    before = config["figures"]["held_back"]["before"]
    after = config["figures"]["held_back"]["after"]
    held = on["held_back"]
    calibration = config["calibration"]
    anchored = (
        f"{calibration['anchors']} pairs of `{calibration['anchors_file']}` scored"
        " as the start scores them"
        if calibration["anchors"]
        else "the start's calibration"
    )
    read_before = source.get("languages", ["en"])
    languages_note = (
        " (as the start)"
        if config.get("languages", ["en"]) == read_before
        else f" (the start read {', '.join(read_before)})"
    )
    stopped = (
        f", stopped by --max-minutes after {training['steps']} of {training['planned_steps']} steps"
        if training["steps"] < training["planned_steps"]
        else ""
    )
    replay = (
        f"{on['replay_pairs']} pairs of `{on['replay_file']}` (the original training data,"
        " drawn as the start was trained), so that it keeps what it knew"
        if on["replay_pairs"]
        else "none"
    )
    rows = [
        ("balanced accuracy at 0.6", "balanced_accuracy"),
        ("best balanced accuracy", "best_balanced_accuracy"),
        ("its threshold", "best_threshold"),
        ("ROC AUC", "roc_auc"),
    ]
    table = "\n".join(
        f"| {title} | {_figure(before[key])} | {_figure(after[key])} |" for title, key in rows
    )
    return f"""# {config["name"]}: a verifier adapted to a team's labels

Written by `manage.py adapt_verifier`; every figure below is in `verifier.json`.

- **Started from** `{source["verifier"]}` (`{source["directory"]}`).
- **Labels**: `{on["file"]}`, {on["labels"]} labels ({on["supported"]} supported,
  {on["unsupported"]} not) on {on["documents"]} documents; skipped
  {on["skipped_unlabelled"]} unlabelled lines and {on["skipped_model_verdicts"]} model
  verdicts.
- **Trained on** {on["trained_on"]["labels"]} labels ({on["trained_on"]["documents"]}
  documents), one pair each (the claim and its best evidence window of
  {training["window_tokens"]} tokens), mixed with a replay of {replay}.
- **Held back** by document (share {held["share"]}): {held["labels"]} labels on
  {held["documents"]} documents, never trained on. The calibration is fitted there and
  moves 0.6, the default `citationThreshold`, toward the best threshold there; the
  labels count {calibration["weight"]:.2f} (held-back labels / (held-back labels +
  {calibration["prior_labels"]})) against {anchored}, so that a few labels of one domain
  do not move every other domain's scores: temperature {config["temperature"]:.3f}, bias
  {config["bias"]:.3f} (fitted on the labels alone: {calibration["fitted"]["temperature"]:.3f},
  {calibration["fitted"]["bias"]:.3f}, best threshold {calibration["fitted"]["optimum"]:.3f}).
- **Languages**: {", ".join(config.get("languages", ["en"]))}{languages_note}.
- **Settings**: {training["epochs"]} epoch(s), batch {training["batch_size"]},
  learning rate {training["lr"]}, {training["max_length"]} tokens,
  {training["precision"]}, seed {training["seed"]}; {training["pairs"]} pairs,
  {training["steps"]} steps{stopped}.
- **Time**: {training["seconds"] / 60:.1f} minutes training, {config["minutes"]} minutes
  in all.

## Figures on the held-back labels

Through the engine (retrieval, windows and penalties, as a request meets them), each
source weighing the same; before is the start with its own calibration.

| | before | after |
| --- | ---: | ---: |
{table}

The adapted model's calibration was fitted on these same labels (weighed as above), so
its figure at 0.6 flatters it; the best balanced accuracy and ROC AUC compare the two
models fairly. Measure it on labels neither has seen (`manage.py grounding_eval FILE --judge
verifier --judge verifier:DIR`) before making it the verifier.
"""
