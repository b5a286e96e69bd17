"""Measuring a verifier directory on labels, as a request meets it (through an engine of
its own, not the process's checker: the candidate is not serving yet)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from grounding_app.engine import CheckRequest
from grounding_app.formats.grounding_jsonl import Example
from grounding_app.verifiers.adapt import windows

if TYPE_CHECKING:
    from grounding_app.engine import CrossEncoderJudge

# Room for the claim (at most 64 tokens) and the three special tokens, as
# `train_long_verifier` leaves it: windows are cut to max_length minus this.
CLAIM_ROOM = 67


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


def has_a_source_with_both_classes(examples: Sequence[Example]) -> bool:
    """Calibration and macro figures are per source: one needs supported and unsupported
    examples of the same source."""
    classes: dict[str, set[int | None]] = {}
    for example in examples:
        classes.setdefault(example.source, set()).add(example.label)
    return any(len(labels) == 2 for labels in classes.values())


def pair_logits(
    judge: CrossEncoderJudge,
    examples: Sequence[Example],
    seed: int,
    per_source: dict[str, int] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The judge's raw logit and the label of one pair per labelled example, its best
    evidence window, as the judge reads it.

    `per_source` caps the pairs of each source (`windows.build_pairs`; {}: 300 each,
    None: no cap).
    """

    def count_tokens(text: str) -> int:
        return len(judge._tokenizer.tokenize(text))

    if per_source is None:
        per_source = {example.source: len(examples) for example in examples}
    budget = judge.config.max_length - CLAIM_ROOM
    pairs = windows.build_pairs(examples, count_tokens, budget, seed, per_source=per_source)
    pairs = [p for p in pairs if p.kind == "original"]
    logits = judge.logits([p.claim for p in pairs], [p.evidence for p in pairs])
    return logits, np.array([p.label for p in pairs], dtype=np.float64)


def engine_scores(
    directory: Path, examples: Sequence[Example]
) -> dict[str, tuple[list[int], list[float]]]:
    """Per source, the labels and the engine's final scores (retrieval, windows and
    penalties included: what a request meets) with the verifier in `directory`."""
    # Imported here: the checker reads Django settings and models, and the lab's commands
    # (`python -m grounding_lab.fit_threshold`, ...) import this module without them.
    from grounding_app.active_verifier.checker import Checker
    from grounding_app.engine import DEFAULT_CITATION_THRESHOLD

    checker = Checker.of_verifier(directory)
    groups: dict[str, tuple[list[int], list[float]]] = {}
    for example in examples:
        if example.label is None:
            continue
        request = CheckRequest(example.claim, example.facts, DEFAULT_CITATION_THRESHOLD, True)
        labels, scores = groups.setdefault(example.source, ([], []))
        labels.append(example.label)
        scores.append(checker.check(request).response.weakest_score())
    return groups


def engine_optimum(directory: Path, examples: Sequence[Example]) -> float:
    """The macro-optimal threshold (each source weighing the same) of the engine's final
    scores with the verifier in `directory`: what `calibrate.bias_shift` moves to 0.6."""
    from grounding_app.metrics import macro_best_threshold

    best, _ = macro_best_threshold(list(engine_scores(directory, examples).values()))
    return best


def figures(directory: Path, examples: Sequence[Example]) -> Figures:
    from grounding_app.engine import DEFAULT_CITATION_THRESHOLD
    from grounding_app.metrics import (
        macro_balanced_accuracy,
        macro_best_threshold,
        reliability_bins,
        roc_auc,
    )

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
