"""What calibration per scope does for each source of a dev file: fitted on the select
half's labels, measured on the report half.

    python -m grounding_lab.scope_calibration DATA PRED [--labels N] [--seed S]

PRED is a `grounding_eval --predictions` file for DATA (the engine's own scale). Each
source is a scope: its select-half labels (all, or `--labels N` drawn from them, as a
team would label) go through `calibration.fit.propose`, the map the app would apply if
its guard passed, and the report half is scored before and after. Besides the guarded
figure, the map applied whatever the guard says shows what the guard holds back.
"""

from __future__ import annotations

import argparse
import json
import random
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

from grounding_app.calibration.fit import propose
from grounding_app.engine import DEFAULT_CITATION_THRESHOLD
from grounding_app.formats.grounding_jsonl import read_examples
from grounding_app.metrics import balanced_accuracy_at
from grounding_lab.evaluation import document_half

Half = tuple[list[float], list[int]]


def halves(data: Path, predictions: Path) -> dict[str, dict[str, Half]]:
    """source -> half -> (scores, labels)."""
    examples = {e.id: e for e in read_examples(data) if e.label is not None}
    out: dict[str, dict[str, Half]] = defaultdict(lambda: {"select": ([], []), "report": ([], [])})
    for line in predictions.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        example = examples.get(row["id"])
        if example is None:
            continue
        scores, labels = out[example.source][document_half(example)]
        scores.append(float(row["score"]))
        labels.append(int(example.label or 0))
    return out


def table(by_source: dict[str, dict[str, Half]], labels: int | None, seed: int) -> list[dict]:
    """Per source: the guard's decision on the select half and the report half's balanced
    accuracy before, after (guarded) and with the map forced."""
    rows = []
    rng = random.Random(seed)
    t = DEFAULT_CITATION_THRESHOLD
    for source, found in sorted(by_source.items()):
        fit_s, fit_y = found["select"]
        if labels is not None and labels < len(fit_y):
            picks = rng.sample(range(len(fit_y)), labels)
            fit_s, fit_y = [fit_s[i] for i in picks], [fit_y[i] for i in picks]
        proposal = propose(fit_s, fit_y)
        scores, ys = found["report"]
        before = balanced_accuracy_at(ys, scores, t)
        forced = (
            balanced_accuracy_at(ys, [proposal.platt(s) for s in scores], t)
            if proposal.platt is not None
            else before
        )
        rows.append(
            {
                "source": source,
                "labels": len(fit_y),
                "applied": proposal.usable,
                "why_not": proposal.refused,
                "report_examples": len(ys),
                "before": before,
                "after": forced if proposal.usable else before,
                "forced": forced,
            }
        )
    return rows


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path)
    parser.add_argument("predictions", type=Path)
    parser.add_argument("--labels", type=int, help="labels drawn per source from the select half")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rows = table(halves(args.data, args.predictions), args.labels, args.seed)
    drawn = f"{args.labels} drawn" if args.labels else "all"
    print(f"{args.data.name}: select-half labels ({drawn}) per source, report half measured")
    print("| source | labels | applied | report n | BA before | BA after | BA if forced |")
    print("|---|---:|---|---:|---:|---:|---:|")
    for r in rows:
        print(
            f"| {r['source']} | {r['labels']} | {'yes' if r['applied'] else 'no'} |"
            f" {r['report_examples']} | {r['before']:.4f} | {r['after']:.4f} | {r['forced']:.4f} |"
        )
    n = len(rows)
    print(
        f"| macro | | {sum(r['applied'] for r in rows)}/{n} | |"
        f" {sum(r['before'] for r in rows) / n:.4f} | {sum(r['after'] for r in rows) / n:.4f} |"
        f" {sum(r['forced'] for r in rows) / n:.4f} |"
    )
    for r in rows:
        if r["why_not"]:
            print(f"- {r['source']}: not applied: {r['why_not']}")


if __name__ == "__main__":
    main()
