"""Engines side by side on a dev file's two halves (by document): select, then report.

    python -m grounding_lab.report_halves DATA old=PRED_OLD new=PRED_NEW [--json FILE]

Each PRED is a `grounding_eval --predictions` file for DATA. For each half
(`evaluation.document_half`) and for the whole file: macro balanced accuracy at the
default threshold and macro ROC AUC over sources (a file of one source reports that
source), plus pooled figures. Choices are made on `select`; `report` is quoted once.
`--json` merges the figures into FILE under the data file's name (the model card's
figures, `grounding_lab/model_card.py`, are rendered from it).
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

from grounding_app.engine import DEFAULT_CITATION_THRESHOLD
from grounding_app.formats.grounding_jsonl import read_examples
from grounding_app.metrics import balanced_accuracy_at, macro_balanced_accuracy, roc_auc
from grounding_lab.evaluation import document_half

HALVES = ("select", "report", "all")


def figures(
    data: Path, predictions: Path, threshold: float = DEFAULT_CITATION_THRESHOLD
) -> dict[str, dict[str, float | int]]:
    """half -> {examples, macro_ba, macro_auc, pooled_ba, pooled_auc}."""
    examples = {e.id: e for e in read_examples(data) if e.label is not None}
    groups: dict[str, dict[str, tuple[list[int], list[float]]]] = {
        h: defaultdict(lambda: ([], [])) for h in HALVES
    }
    for line in predictions.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        example = examples.get(row["id"])
        if example is None:
            continue
        for half in (document_half(example), "all"):
            labels, scores = groups[half][example.source]
            labels.append(int(example.label or 0))
            scores.append(float(row["score"]))
    out: dict[str, dict[str, float | int]] = {}
    for half, by_source in groups.items():
        pairs = list(by_source.values())
        usable = [(ys, ps) for ys, ps in pairs if 0 < sum(ys) < len(ys)]
        aucs = [roc_auc(ys, ps) for ys, ps in usable]
        pooled_y = [y for ys, _ in pairs for y in ys]
        pooled_p = [p for _, ps in pairs for p in ps]
        out[half] = {
            "examples": len(pooled_y),
            "macro_ba": macro_balanced_accuracy(pairs, threshold),
            "macro_auc": sum(a for a in aucs if a is not None) / max(1, len(aucs)),
            "pooled_ba": balanced_accuracy_at(pooled_y, pooled_p, threshold) if pooled_y else 0.0,
            "pooled_auc": roc_auc(pooled_y, pooled_p) or 0.0,
        }
    return out


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path)
    parser.add_argument("runs", nargs="+", metavar="NAME=PREDICTIONS")
    parser.add_argument("--json", type=Path, help="merge the figures into this file")
    args = parser.parse_args(argv)
    merged: dict[str, dict[str, object]] = {}
    print(f"{args.data.name} (threshold {DEFAULT_CITATION_THRESHOLD})")
    print("| engine | half | examples | macro BA | macro AUC | pooled BA | pooled AUC |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for run in args.runs:
        name, _, path = run.partition("=")
        found = figures(args.data, Path(path))
        merged[name] = {h: {k: round(v, 4) for k, v in f.items()} for h, f in found.items()}
        for half, f in found.items():
            print(
                f"| {name} | {half} | {f['examples']} | {f['macro_ba']:.4f} |"
                f" {f['macro_auc']:.4f} | {f['pooled_ba']:.4f} | {f['pooled_auc']:.4f} |"
            )
    if args.json is not None:
        stored = json.loads(args.json.read_text()) if args.json.is_file() else {}
        stored.setdefault(args.data.name, {}).update(merged)
        args.json.write_text(json.dumps(stored, indent=2, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
