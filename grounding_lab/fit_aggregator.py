"""Fit the aggregator: one logistic score from the judges and the checks (engine/aggregate.py).

    python -m grounding_lab.fit_aggregator record ../shared/data/grounding/train.jsonl \
        --per-source 200 --out var/agg-train.jsonl
    python -m grounding_lab.fit_aggregator record \
        ../shared/data/grounding/dev_realistic.jsonl --out var/agg-dev.jsonl
    python -m grounding_lab.fit_aggregator fit var/agg-train.jsonl \
        --dev var/agg-dev.jsonl ../shared/data/grounding/dev_realistic.jsonl --out FILE

`record` runs the default engine (without an aggregator) on each example and writes every
evidence option's features per claim. `fit` fits a logistic model on the train records
(sources sampled evenly, classes balanced); an example's score is its weakest claim's best
option, as `grounding_eval` scores it, so fitting alternates between picking each example's
deciding option with the current weights and refitting. The bias is then moved so that the
default threshold is the macro optimum on dev's `select` half, and the aggregator is shown
beside the engine's fixed penalties on both halves; `report` is the figure to quote.

    python -m grounding_lab.fit_aggregator fit-runs --runs var/runs --out FILE

`fit-runs` fits on `grounding_lab/check_runs.py` records instead, and only on what may ship a fit:
the fit half (by document) of fit_unseen's `check_covid` and `diasumfact_qmsum` (each
source and label weighing the same), with the checks `engine/data/checks.json` keeps on.
The bias puts that half's macro optimum at the default threshold. Its figures: both halves
of those sources, the measured-only sources, dev_realistic's report half and dev_hebrew's,
beside the engine of today (every check on, fixed penalties) and the selected checks alone.

The verifier was trained on part of `train.jsonl`, so its logit there is more confident
than on unseen text: the fit leans on it more than unseen data would warrant.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections import defaultdict
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from scipy.optimize import minimize
from sklearn.linear_model import LogisticRegression
from tqdm import tqdm

from grounding_app.engine import (
    AGGREGATE_FEATURES,
    DEFAULT_CITATION_THRESHOLD,
    CheckRequest,
    GroundingEngine,
)
from grounding_app.engine.aggregate import Aggregator
from grounding_app.formats.grounding_jsonl import read_examples
from grounding_app.metrics import macro_balanced_accuracy, macro_best_threshold, roc_auc
from grounding_lab.evaluation import document_half, sample_per_source
from grounding_lab.fit_threshold import bias_shift

# The engine's fixed penalties, in logits, for comparison (pipeline.Settings as shipped).
PENALTIES = {"contradiction": 5.0, "role": 5.0, "hedge": 5.0}

Record = dict[str, list[list[float]]]  # claim id -> options' features


def record(data: Path, out: Path, per_source: int, seed: int) -> None:
    engine = GroundingEngine.default()
    labelled = [e for e in read_examples(data) if e.label is not None]
    examples = sample_per_source(labelled, per_source, seed) if per_source else labelled
    options: Record = defaultdict(list)

    def keep(claim: int, features: tuple[float, ...]) -> None:
        options[str(claim)].append(list(features))

    engine.recorder = keep
    with out.open("w", encoding="utf-8") as sink:
        for example in tqdm(examples, desc=data.name, file=sys.stderr):
            options.clear()
            engine.check(CheckRequest(example.claim, example.facts, enable_claim_level_score=True))
            row = {"id": example.id, "source": example.source, "label": example.label}
            sink.write(json.dumps({**row, "claims": dict(options)}) + "\n")


def _read(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _penalised(x: np.ndarray) -> np.ndarray:
    names = AGGREGATE_FEATURES
    z = x[:, names.index("verifier")].copy()
    for kind, penalty in PENALTIES.items():
        z -= penalty * x[:, names.index(kind)]
    return z


def _deciding(
    rows: Sequence[dict[str, Any]], score: Callable[[np.ndarray], np.ndarray]
) -> tuple[list[np.ndarray | None], list[float | None]]:
    """Per example: the features of its weakest claim's best option, and the example's
    logit under `score` (examples without a judged claim are left out)."""
    chosen: list[np.ndarray | None] = []
    logits: list[float | None] = []
    for row in rows:
        claims = [np.asarray(v, dtype=np.float64) for v in row["claims"].values() if v]
        if not claims:
            chosen.append(None)
            logits.append(None)
            continue
        best = [(score(c), c) for c in claims]
        per_claim = [(z.max(), c[int(z.argmax())]) for z, c in best]
        z, features = min(per_claim, key=lambda item: item[0])
        chosen.append(features)
        logits.append(float(z))
    return chosen, logits


def _groups(
    rows: Sequence[dict[str, Any]], logits: Sequence[float | None], data: Path, half: str
) -> list[tuple[list[int], list[float]]]:
    examples = {e.id: e for e in read_examples(data)}
    groups: dict[str, tuple[list[int], list[float]]] = defaultdict(lambda: ([], []))
    for row, z in zip(rows, logits, strict=True):
        example = examples[row["id"]]
        if half != "all" and document_half(example) != half:
            continue
        p = 1.0 if z is None else 1.0 / (1.0 + math.exp(-z))
        groups[row["source"]][0].append(int(row["label"]))
        groups[row["source"]][1].append(p)
    return list(groups.values())


def _macro_auc(groups: Sequence[tuple[list[int], list[float]]]) -> float:
    aucs = [roc_auc(ys, ps) for ys, ps in groups if 0 < sum(ys) < len(ys)]
    return sum(a for a in aucs if a is not None) / max(1, len(aucs))


def _fit_around_verifier(
    x: np.ndarray, labels: np.ndarray, c: float, sample: np.ndarray | None = None
) -> tuple[np.ndarray, float]:
    """Logistic weights for every feature but the verifier's, whose weight stays 1 (its
    logit an offset): the verifier keeps its calibration, the fit adds what the judges
    and checks say beside it. Each example weighs `sample`, else the classes are
    balanced; L2 as scikit-learn's C."""
    v = AGGREGATE_FEATURES.index("verifier")
    offset = x[:, v]
    others = np.delete(x, v, axis=1)
    n = len(labels)
    positives = max(1, int(labels.sum()))
    if sample is None:
        sample = np.where(labels == 1, n / (2 * positives), n / (2 * max(1, n - positives)))

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        w, b = theta[:-1], theta[-1]
        z = offset + others @ w + b
        p = 1.0 / (1.0 + np.exp(-np.clip(z, -40, 40)))
        nll = sample * (np.logaddexp(0.0, z) - labels * z)
        residual = sample * (p - labels)
        grad = np.append(others.T @ residual + w / c, residual.sum())
        return float(nll.sum() + (w @ w) / (2 * c)), grad

    theta = minimize(loss, np.zeros(others.shape[1] + 1), jac=True, method="L-BFGS-B").x
    return np.insert(theta[:-1], v, 1.0), float(theta[-1])


def fit(
    train: Path,
    dev: Path,
    dev_data: Path,
    out: Path,
    iterations: int,
    c: float,
    around_verifier: bool = False,
) -> None:
    rows = [r for r in _read(train) if any(r["claims"].values())]
    labels = np.array([int(r["label"]) for r in rows])
    weights = np.zeros(len(AGGREGATE_FEATURES))
    weights[AGGREGATE_FEATURES.index("verifier")] = 1.0
    bias = 0.0

    def current(x: np.ndarray) -> np.ndarray:
        return x @ weights + bias

    for _ in range(iterations):
        chosen, _ = _deciding(rows, current)
        x = np.vstack([features for features in chosen if features is not None])
        if around_verifier:
            weights, bias = _fit_around_verifier(x, labels, c)
            continue
        model = LogisticRegression(C=c, class_weight="balanced", max_iter=5000).fit(x, labels)
        weights, bias = model.coef_[0].copy(), float(model.intercept_[0])
    print(f"fitted on {len(rows)} train examples")
    for name, w in zip(AGGREGATE_FEATURES, weights, strict=True):
        print(f"  {name:14s} {w:+.3f}")

    dev_rows = _read(dev)
    _, fitted = _deciding(dev_rows, lambda x: x @ weights + bias)
    # The bias that puts the macro optimum of the select half at the default threshold.
    best, _ = macro_best_threshold(_groups(dev_rows, fitted, dev_data, "select"))
    bias += bias_shift(best, 1.0, DEFAULT_CITATION_THRESHOLD)
    _, fitted = _deciding(dev_rows, lambda x: x @ weights + bias)
    _, fixed = _deciding(dev_rows, _penalised)
    print(f"{dev_data.name}: macro BA at {DEFAULT_CITATION_THRESHOLD} / macro AUC")
    figures: dict[str, dict[str, float]] = {}
    for half in ("select", "report", "all"):
        for name, logits in (("penalties", fixed), ("aggregator", fitted)):
            groups = _groups(dev_rows, logits, dev_data, half)
            ba = macro_balanced_accuracy(groups, DEFAULT_CITATION_THRESHOLD)
            auc = _macro_auc(groups)
            figures[f"{name}:{half}"] = {"macro_ba": round(ba, 4), "macro_auc": round(auc, 4)}
            print(f"  {half:6s} {name:10s} {ba:.4f} / {auc:.4f}")
    out.write_text(
        json.dumps(
            {
                "features": list(AGGREGATE_FEATURES),
                "weights": [float(w) for w in weights],
                "bias": bias,
                "fitted_on": {
                    "file": train.name,
                    "examples": len(rows),
                    "C": c,
                    "verifier_weight": "fixed at 1" if around_verifier else "fitted",
                },
                "bias_set_on": f"{dev_data.name}: select half, macro optimum {best:.3f} -> 0.6",
                "figures": figures,
            },
            indent=2,
        )
        + "\n"
    )
    print(f"wrote {out}")


def _runs_options(
    run: dict[str, Any], on: Mapping[str, Collection[str]], kinds: Mapping[str, str]
) -> list[np.ndarray]:
    """Per claim its options' features, the check flags from the checks `on` only."""
    from grounding_lab.check_runs import KIND_FEATURES

    claims = []
    for claim in run["claims"]:
        names = {n for n, languages in on.items() if claim["language"] in languages}
        x = np.array([o["x"] for o in claim["options"]], dtype=np.float64)
        for kind, feature in KIND_FEATURES.items():
            x[:, AGGREGATE_FEATURES.index(feature)] = [
                float(any(kinds[n] == kind for n in o["checks"] if n in names))
                for o in claim["options"]
            ]
        claims.append(x)
    return claims


def _source_weights(rows: Sequence[dict[str, Any]]) -> np.ndarray:
    """Each (source, label) weighing the same in total, whatever its size."""
    counts: dict[tuple[str, int], int] = defaultdict(int)
    for row in rows:
        counts[(row["source"], int(row["label"]))] += 1
    n = len(rows)
    return np.array([n / (len(counts) * counts[(r["source"], int(r["label"]))]) for r in rows])


def _fit_deciding(
    options: Sequence[list[np.ndarray]],
    labels: np.ndarray,
    sample: np.ndarray,
    iterations: int,
    c: float,
    around_verifier: bool,
) -> tuple[np.ndarray, float]:
    """Weights and bias, alternating between each example's deciding option under the
    current weights (its weakest claim's best) and a refit on those options."""
    weights = np.zeros(len(AGGREGATE_FEATURES))
    weights[AGGREGATE_FEATURES.index("verifier")] = 1.0
    bias = 0.0
    for _ in range(iterations):
        deciding = [
            min((x[int(np.argmax(x @ weights))] for x in claims), key=lambda f: float(f @ weights))
            for claims in options
        ]
        if around_verifier:
            weights, bias = _fit_around_verifier(np.vstack(deciding), labels, c, sample)
            continue
        model = LogisticRegression(C=c, max_iter=5000)
        model.fit(np.vstack(deciding), labels, sample_weight=sample)
        weights, bias = model.coef_[0].copy(), float(model.intercept_[0])
    return weights, bias


def _runs_figures(
    runs_dir: Path,
    on: Mapping[str, Collection[str]],
    kinds: Mapping[str, str],
    penalties: Mapping[str, float],
    aggregator: Aggregator,
) -> dict[str, dict[str, dict[str, float]]]:
    """Macro figures of today's engine, the selected checks and those with the aggregator,
    on every group of runs `check_report` compares."""
    from grounding_app.engine.checks import all_checks
    from grounding_lab.check_report import compared
    from grounding_lab.check_runs import checks_on, macro_figures

    engines = {
        "today (every check)": (checks_on(all_checks()), None),
        "checks selected": (on, None),
        "checks selected + aggregator": (on, aggregator),
    }
    figures: dict[str, dict[str, dict[str, float]]] = {}
    print(f"macro BA at {DEFAULT_CITATION_THRESHOLD} / macro AUC")
    for group, among in compared(runs_dir).items():
        figures[group] = {}
        for engine, (checks, agg) in engines.items():
            f = macro_figures(among, checks, kinds, penalties, agg)
            figures[group][engine] = f
            print(f"  {group:52s} {engine:30s} {f['macro_ba']:.4f} / {f['macro_auc']:.4f}")
    return figures


def fit_runs(runs_dir: Path, out: Path, iterations: int, c: float, around_verifier: bool) -> None:
    from grounding_app.engine.checks import CHECKS_FILE
    from grounding_lab.check_report import FIT_HALF, FITTABLE, SELECT_ON
    from grounding_lab.check_runs import example_score, read_runs

    runs, meta = read_runs(runs_dir / SELECT_ON)
    kinds, penalties = meta["kinds"], meta["penalties"]
    if meta["features"] != list(AGGREGATE_FEATURES):
        raise SystemExit(f"{SELECT_ON} runs were recorded with features {meta['features']}")
    on = json.loads(CHECKS_FILE.read_text())["on"]
    fit_half = [r for r in runs if r["source"] in FITTABLE and r["half"] == FIT_HALF]
    # Examples whose every claim the verifier read (the aggregator scores only those).
    rows = [
        r
        for r in fit_half
        if r["claims"] and all(c["options"] and c["options"][0]["x"] for c in r["claims"])
    ]
    weights, bias = _fit_deciding(
        [_runs_options(r, on, kinds) for r in rows],
        np.array([int(r["label"]) for r in rows]),
        _source_weights(rows),
        iterations,
        c,
        around_verifier,
    )
    unshifted = Aggregator(tuple(float(w) for w in weights), bias)
    groups: dict[str, tuple[list[int], list[float]]] = defaultdict(lambda: ([], []))
    for run in fit_half:
        groups[run["source"]][0].append(int(run["label"]))
        groups[run["source"]][1].append(example_score(run, on, kinds, penalties, unshifted))
    best, _ = macro_best_threshold(list(groups.values()))
    aggregator = Aggregator(
        unshifted.weights, bias + bias_shift(best, 1.0, DEFAULT_CITATION_THRESHOLD)
    )
    print(f"fitted on {len(rows)} examples of {SELECT_ON} ({', '.join(FITTABLE)}, {FIT_HALF})")
    for name, w in zip(AGGREGATE_FEATURES, weights, strict=True):
        print(f"  {name:16s} {w:+.3f}")
    figures = _runs_figures(runs_dir, on, kinds, penalties, aggregator)
    out.write_text(
        json.dumps(
            {
                "features": list(AGGREGATE_FEATURES),
                "weights": list(aggregator.weights),
                "bias": aggregator.bias,
                "fitted_on": {
                    "file": SELECT_ON,
                    "sources": list(FITTABLE),
                    "half": FIT_HALF,
                    "examples": len(rows),
                    "C": c,
                    "verifier_weight": "fixed at 1" if around_verifier else "fitted",
                    "weighting": "each (source, label) the same",
                    "checks_on": on,
                },
                "bias_set_on": f"the same half: macro optimum {best:.3f} -> 0.6",
                "figures": figures,
            },
            indent=2,
        )
        + "\n"
    )
    print(f"wrote {out}")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record")
    rec.add_argument("data", type=Path)
    rec.add_argument("--out", type=Path, required=True)
    rec.add_argument("--per-source", type=int, default=0, help="0: every example")
    rec.add_argument("--seed", type=int, default=13)
    fitting = sub.add_parser("fit")
    fitting.add_argument("train", type=Path)
    fitting.add_argument("--dev", nargs=2, type=Path, required=True, metavar=("RECORDS", "DATA"))
    fitting.add_argument("--out", type=Path, required=True)
    fitting.add_argument("--iterations", type=int, default=3)
    fitting.add_argument("-C", type=float, default=1.0)
    fitting.add_argument(
        "--around-verifier",
        action="store_true",
        help="keep the verifier's weight at 1 and fit the rest beside it",
    )
    runs = sub.add_parser("fit-runs")
    runs.add_argument("--runs", type=Path, default=Path("var/runs"))
    runs.add_argument("--out", type=Path, required=True)
    runs.add_argument("--iterations", type=int, default=3)
    runs.add_argument("-C", type=float, default=1.0)
    runs.add_argument("--around-verifier", action="store_true")
    args = parser.parse_args(argv)
    if args.command == "fit-runs":
        fit_runs(args.runs, args.out, args.iterations, args.C, args.around_verifier)
    elif args.command == "record":
        record(args.data, args.out, args.per_source, args.seed)
    else:
        fit(
            args.train,
            args.dev[0],
            args.dev[1],
            args.out,
            args.iterations,
            args.C,
            args.around_verifier,
        )


if __name__ == "__main__":
    main()
