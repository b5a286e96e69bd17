"""Fit the word-matching judge on English training pairs; choose each language's offset.

    python -m grounding_lab.fit_word_match ../shared/data/grounding/train.jsonl \
        --calibrate he=../shared/data/hebrew/dev_hebrew.jsonl

The features (`engine/word_match.py`) are the same in every language, read through its
profile, so they are fitted where labels are plenty: English pairs of `train.jsonl` whose
facts are passage-sized (at most `--max-chars`), as the engine shows the judge a passage.
Sources are sampled evenly and classes weighted to balance. For each `--calibrate`
language the bias is then moved so that the default threshold 0.6 is where balanced
accuracy peaks on that file's `select` half (by document, `evaluation.document_half`),
and both halves are reported; the `report` half is the figure to quote. The penalties of
the two checks the English fit under-weighs (a missing number, a negation only the claim
has) are chosen on the first calibration file's `select` half, from a small grid.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression

from grounding_app.engine import (
    DEFAULT_CITATION_THRESHOLD,
    WORD_MATCH_FEATURES,
    WORD_MATCH_WEIGHTS,
    profile,
    word_match_features,
)
from grounding_app.formats.grounding_jsonl import Example, read_examples
from grounding_app.metrics import balanced_accuracy_at, best_threshold, roc_auc
from grounding_lab.evaluation import document_half, sample_per_source

PENALISED = ("missing_number", "negated_claim_only")
PENALTY_GRID = (0.0, 1.0, 2.0, 3.0)


def _logit(p: float) -> float:
    return math.log(p / (1.0 - p))


def _sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-z))


def _penalised(weights: Sequence[float], penalties: dict[str, float]) -> np.ndarray:
    out = np.asarray(weights, dtype=np.float64).copy()
    for name, penalty in penalties.items():
        out[WORD_MATCH_FEATURES.index(name)] -= penalty
    return out


def _matrix(examples: Sequence[Example], language: str) -> np.ndarray:
    reader = profile(language)
    return np.array(
        [word_match_features(e.claim, " ".join(f.text for f in e.facts), reader) for e in examples],
        dtype=np.float64,
    )


Calibration = tuple[str, str, list[Example], np.ndarray, list[str]]


def _fit(train: Sequence[Example]) -> tuple[list[float], float]:
    """English weights, and the bias that puts the train set's best cut at the default
    threshold."""
    x = _matrix(train, "en")
    y = np.array([e.label for e in train])
    model = LogisticRegression(class_weight="balanced", max_iter=2000).fit(x, y)
    weights = [float(w) for w in model.coef_[0]]
    bias = float(model.intercept_[0])
    train_scores = model.decision_function(x)
    cut, _ = best_threshold(list(y), [float(s) for s in 1 / (1 + np.exp(-train_scores))])
    bias += _logit(DEFAULT_CITATION_THRESHOLD) - _logit(min(max(cut, 1e-6), 1 - 1e-6))
    print(f"fitted on {len(train)} train pairs ({len(set(e.source for e in train))} sources)")
    for name, w in zip(WORD_MATCH_FEATURES, weights, strict=True):
        print(f"  {name:20s} {w:+.3f}")
    return weights, bias


def _calibration_sets(specs: Sequence[str]) -> list[Calibration]:
    calibration = []
    for spec in specs:
        language, _, path = spec.partition("=")
        examples = [e for e in read_examples(Path(path)) if e.label is not None]
        halves = [document_half(e) for e in examples]
        calibration.append((language, path, examples, _matrix(examples, language), halves))
    return calibration


def _penalties(calibration: Sequence[Calibration], weights: Sequence[float]) -> dict[str, float]:
    """The grid's best penalties on the first calibration file's `select` half (none
    without one)."""
    penalties = {name: 0.0 for name in PENALISED}
    if not calibration:
        return penalties
    _, _, examples, x_dev, halves = calibration[0]
    pick = [i for i, h in enumerate(halves) if h == "select"]
    labels = [int(examples[i].label or 0) for i in pick]
    best = (-1.0, penalties)
    for values in itertools.product(PENALTY_GRID, repeat=len(PENALISED)):
        trial = dict(zip(PENALISED, values, strict=True))
        logits = x_dev[pick] @ _penalised(weights, trial)
        auc = roc_auc(labels, [float(z) for z in logits]) or 0.0
        if auc > best[0] + 1e-9:
            best = (auc, trial)
    print("penalties", best[1], f"(select-half AUC {best[0]:.3f})")
    return best[1]


def _calibrate(
    one: Calibration, effective: np.ndarray, bias: float
) -> tuple[float, dict[str, object]]:
    """A language's bias, its best cut on the `select` half moved to the default threshold,
    and both halves' figures at that bias."""
    language, path, examples, x_dev, halves = one
    logits = x_dev @ effective
    pick = [i for i, h in enumerate(halves) if h == "select"]
    labels = [int(examples[i].label or 0) for i in pick]
    cut, _ = best_threshold(labels, [_sigmoid(logits[i] + bias) for i in pick])
    cut = min(max(cut, 1e-6), 1 - 1e-6)
    moved = bias + _logit(DEFAULT_CITATION_THRESHOLD) - _logit(cut)
    report: dict[str, object] = {"file": Path(path).name}
    for half in ("select", "report"):
        rows = [i for i, h in enumerate(halves) if h == half]
        labels = [int(examples[i].label or 0) for i in rows]
        scores = [_sigmoid(logits[i] + moved) for i in rows]
        ba = balanced_accuracy_at(labels, scores, DEFAULT_CITATION_THRESHOLD)
        half_auc = roc_auc(labels, scores)
        report[half] = {
            "examples": len(rows),
            "balanced_accuracy": round(ba, 4),
            "roc_auc": None if half_auc is None else round(half_auc, 4),
        }
        print(f"{language} {half:6s} n={len(rows)} BA@0.6 {ba:.3f} AUC {half_auc or 0:.3f}")
    return moved, report


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("train", type=Path)
    parser.add_argument("--calibrate", action="append", default=[], metavar="LANG=FILE")
    parser.add_argument("--per-source", type=int, default=3000)
    parser.add_argument("--max-chars", type=int, default=600)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--out", type=Path, default=WORD_MATCH_WEIGHTS)
    args = parser.parse_args(argv)

    passage_sized = [
        e
        for e in read_examples(args.train)
        if e.label is not None and sum(len(f.text) for f in e.facts) <= args.max_chars
    ]
    train = sample_per_source(passage_sized, args.per_source, args.seed)
    weights, bias = _fit(train)
    calibration = _calibration_sets(args.calibrate)
    penalties = _penalties(calibration, weights)
    effective = _penalised(weights, penalties)
    biases: dict[str, float] = {}
    figures: dict[str, dict[str, object]] = {}
    for one in calibration:
        biases[one[0]], figures[one[0]] = _calibrate(one, effective, bias)

    data = {
        "features": list(WORD_MATCH_FEATURES),
        "weights": weights,
        "bias": bias,
        "biases": biases,
        "penalties": penalties,
        "fitted_on": {
            "file": args.train.name,
            "pairs": len(train),
            "per_source": args.per_source,
            "max_chars": args.max_chars,
            "seed": args.seed,
        },
        "calibrated_on": figures,
    }
    args.out.write_text(json.dumps(data, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
