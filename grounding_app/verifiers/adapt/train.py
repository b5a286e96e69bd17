"""Fine-tuning a verifier on a team's labels: the pairs it trains on (the labels' own, a
replay of the original training data, anchors held out for the calibration), the
training itself (sentence-transformers' `CrossEncoderTrainer`, CPU) and the weights
written as the start laid them out."""

from __future__ import annotations

import math
import os
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grounding_app.formats.grounding_jsonl import Example
from grounding_app.verifiers.adapt import windows
from grounding_app.verifiers.adapt.options import AdaptError, Options
from grounding_app.verifiers.adapt.windows import TrainPair

WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")
# What describes the start, not the adapted model: not copied into the new directory.
NOT_COPIED = frozenset({*WEIGHT_FILES, "verifier.json", "MODEL_CARD.md"})


@dataclass(frozen=True)
class Training:
    pairs: int
    steps: int
    planned_steps: int
    seconds: float
    precision: str


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
