"""How much a team's own labels lift the verifier: issue 24's adaptation experiments.

    python -m grounding_lab.adapt_experiments --out var/adapt-exp [--sources a,b,c,d]
        [--labels 600] [--hebrew ../shared/data/hebrew/dev_hebrew.jsonl]

For each chosen `dev_realistic` source (by default the four where the shipped engine's
balanced accuracy at 0.6 is lowest, among those with enough labels of each class to
adapt on), the source is split by document into an adapt side and a test side. At most
`--labels` labels of the adapt side go to `adapt_verifier` (which itself holds a fifth
of them back, by document, to calibrate on); the adapted verifier is then measured on
the test side and on every other `dev_realistic` source, beside the shipped verifier on
the same examples. With `--hebrew`, the same on Hebrew: the adapted verifier declares
Hebrew (`--languages en,he`), so its Hebrew claims reach it instead of word matching.

The split here is salted, unlike adapt's own hold-out, so the adapt side still has
documents for adapt to hold back. Every figure goes to `OUT/figures.json`; each model
stays in `OUT/<name>/` with its card.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from grounding_app.formats.grounding_jsonl import Example, read_examples
from grounding_app.metrics import (
    balanced_accuracy_at,
    best_threshold,
    macro_balanced_accuracy,
    roc_auc,
)
from grounding_app.verifiers.adapt import DATA, Options, adapt
from grounding_app.verifiers.adapt.labels import document_key

HEBREW = DATA.parent / "hebrew" / "dev_hebrew.jsonl"
THRESHOLD = 0.6
SALT = "adapt-experiment"
Groups = dict[str, tuple[list[int], list[float]]]


def salted(example: Example) -> str:
    """The document's place in this experiment's order (adapt's own hold-out is unsalted)."""
    return hashlib.sha1(f"{SALT}:{document_key(example)}".encode()).hexdigest()


def test_side(example: Example) -> bool:
    """Half the documents."""
    return int(salted(example)[:16], 16) / 16**16 < 0.5


def split(examples: Sequence[Example]) -> tuple[list[Example], list[Example]]:
    adapt_side = [e for e in examples if not test_side(e)]
    return adapt_side, [e for e in examples if test_side(e)]


def cap_by_document(examples: Sequence[Example], most: int, seed: int) -> list[Example]:
    """At most `most` labels, whole documents at a time, in a seeded order."""
    by_document: dict[str, list[Example]] = {}
    for example in examples:
        by_document.setdefault(document_key(example), []).append(example)
    keys = sorted(by_document)
    random.Random(seed).shuffle(keys)
    kept: list[Example] = []
    for key in keys:
        if len(kept) + len(by_document[key]) > most:
            continue
        kept.extend(by_document[key])
    return kept


def hebrew_split(examples: Sequence[Example], adapt_on: int) -> tuple[list[Example], list[Example]]:
    """The first `adapt_on` labels in salted document order adapt; the rest test."""
    ordered = sorted(examples, key=lambda e: (salted(e), e.id))
    cut = adapt_on
    while 0 < cut < len(ordered) and document_key(ordered[cut]) == document_key(ordered[cut - 1]):
        cut += 1
    return ordered[:cut], ordered[cut:]


def write_labels(path: Path, raw: dict[str, str], examples: Sequence[Example]) -> Path:
    path.write_text("".join(raw[e.id] for e in examples), encoding="utf-8")
    return path


def read_raw(path: Path) -> dict[str, str]:
    raw: dict[str, str] = {}
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                raw[json.loads(line)["id"]] = line if line.endswith("\n") else line + "\n"
    return raw


def scores(directory: Path, examples: Sequence[Example], cache: Path) -> dict[str, float]:
    """The engine's final score per example id with the verifier in `directory`, kept in
    `cache` so a rerun reads what an earlier run measured."""
    from grounding_app.verifiers.adapt.measure import engine_scores

    done: dict[str, float] = json.loads(cache.read_text()) if cache.is_file() else {}
    todo = [e for e in examples if e.id not in done]
    if todo:
        ordered = [e for e in todo if e.label is not None]
        groups = engine_scores(directory, ordered)
        position = {source: 0 for source in groups}
        for example in ordered:
            _, values = groups[example.source]
            done[example.id] = values[position[example.source]]
            position[example.source] += 1
        cache.write_text(json.dumps(done))
    return done


def grouped(examples: Sequence[Example], score: dict[str, float]) -> Groups:
    groups: Groups = {}
    for example in examples:
        if example.label is None:
            continue
        labels, values = groups.setdefault(example.source, ([], []))
        labels.append(example.label)
        values.append(score[example.id])
    return groups


def summary(groups: Groups) -> dict[str, Any]:
    aucs = [a for ys, ps in groups.values() if (a := roc_auc(ys, ps)) is not None]
    best = [best_threshold(ys, ps)[1] for ys, ps in groups.values()]
    return {
        "examples": sum(len(ys) for ys, _ in groups.values()),
        "macro_ba": round(macro_balanced_accuracy(list(groups.values()), THRESHOLD), 4),
        "macro_auc": round(sum(aucs) / len(aucs), 4) if aucs else None,
        # Each source at the threshold best on its own labels here: what no calibration
        # can beat without ranking them better.
        "macro_best_ba": round(sum(best) / len(best), 4) if best else None,
    }


def weakest(examples: Sequence[Example], score: dict[str, float], count: int) -> list[str]:
    """The `count` sources with the lowest shipped balanced accuracy that can be adapted
    on: at least 10 labels of each class on each side of the split."""
    ranked = []
    for source, (labels, values) in grouped(examples, score).items():
        sides = split([e for e in examples if e.source == source])
        if all(min(sum(e.label == c for e in side) for c in (0, 1)) >= 10 for side in sides):
            ranked.append((balanced_accuracy_at(labels, values, THRESHOLD), source))
    return [source for _, source in sorted(ranked)[:count]]


def run(args: argparse.Namespace) -> dict[str, Any]:
    from grounding_app.engine import VERIFIER_DIR

    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    results_path = out / "figures.json"
    results: dict[str, Any] = json.loads(results_path.read_text()) if results_path.is_file() else {}
    if args.table:
        table(results)
        return results
    options = Options(seed=args.seed)
    dev = list(read_examples(args.dev))
    raw = read_raw(args.dev)
    shipped = scores(VERIFIER_DIR, dev, out / "shipped-dev_realistic.scores.json")
    sources = args.sources or weakest(dev, shipped, 4)
    print(f"sources: {', '.join(sources)}", flush=True)
    for source in sources:
        if source in results.get("sources", {}):
            continue
        adapt_side, test = split([e for e in dev if e.source == source])
        labels = cap_by_document(adapt_side, args.labels, args.seed)
        directory = out / source
        if not (directory / "verifier.json").is_file():
            path = write_labels(out / f"{source}.labels.jsonl", raw, labels)
            adapt(path, directory, VERIFIER_DIR, replace(options, name=f"adapted-{source}"))
        others = [e for e in dev if e.source != source]
        adapted = scores(directory, [*test, *others], out / f"{source}.scores.json")
        config = json.loads((directory / "verifier.json").read_text())
        results.setdefault("sources", {})[source] = {
            "adapted_on": len(labels),
            "minutes": config["minutes"],
            "test": {
                "shipped": summary(grouped(test, shipped)),
                "adapted": summary(grouped(test, adapted)),
            },
            "other_sources": {
                "shipped": summary(grouped(others, shipped)),
                "adapted": summary(grouped(others, adapted)),
            },
        }
        results_path.write_text(json.dumps(results, indent=2))
        print(json.dumps({source: results["sources"][source]}), flush=True)
    if args.hebrew and "hebrew" not in results:
        hebrew = list(read_examples(args.hebrew))
        adapt_side, test = hebrew_split(hebrew, args.hebrew_labels)
        directory = out / "hebrew"
        if not (directory / "verifier.json").is_file():
            path = write_labels(out / "hebrew.labels.jsonl", read_raw(args.hebrew), adapt_side)
            hebrew_options = replace(options, name="adapted-hebrew", languages=("en", "he"))
            adapt(path, directory, VERIFIER_DIR, hebrew_options)
        before = scores(VERIFIER_DIR, test, out / "shipped-hebrew.scores.json")
        after = scores(directory, test, out / "hebrew.scores.json")
        config = json.loads((directory / "verifier.json").read_text())
        results["hebrew"] = {
            "adapted_on": len(adapt_side),
            "minutes": config["minutes"],
            "test": {
                "shipped": summary(grouped(test, before)),
                "adapted": summary(grouped(test, after)),
            },
        }
        results_path.write_text(json.dumps(results, indent=2))
    table(results)
    return results


def table(results: dict[str, Any]) -> None:
    """Balanced accuracy at 0.6 (ROC AUC) before -> after, per experiment."""

    def pair(figures: dict[str, Any]) -> str:
        a, b = figures["shipped"], figures["adapted"]
        return (
            f"{a['macro_ba']:.3f} -> {b['macro_ba']:.3f} ({b['macro_ba'] - a['macro_ba']:+.3f});"
            f" AUC {a['macro_auc']:.3f} -> {b['macro_auc']:.3f}"
        )

    def ceiling(figures: dict[str, Any]) -> str:
        best = figures["shipped"].get("macro_best_ba")
        return "" if best is None else f"{best:.3f}"

    gains, ceilings = [], []
    print(
        "| adapted on | labels | minutes | its test side | shipped at each source's best"
        " threshold there | the other sources |"
    )
    print("|---|---|---|---|---|---|")
    for source, row in results.get("sources", {}).items():
        test = row["test"]
        gains.append(test["adapted"]["macro_ba"] - test["shipped"]["macro_ba"])
        if test["shipped"].get("macro_best_ba") is not None:
            ceilings.append(test["shipped"]["macro_best_ba"] - test["shipped"]["macro_ba"])
        print(
            f"| {source} | {row['adapted_on']} | {row['minutes']} | {pair(test)} |"
            f" {ceiling(test)} | {pair(row['other_sources'])} |"
        )
    if "hebrew" in results:
        row = results["hebrew"]
        print(
            f"| dev_hebrew | {row['adapted_on']} | {row['minutes']} | {pair(row['test'])} |"
            f" {ceiling(row['test'])} | |"
        )
    if gains:
        print(f"mean balanced-accuracy gain on the test sides: {sum(gains) / len(gains):+.4f}")
    if ceilings:
        print(
            "mean gain a threshold chosen on each test side itself would give the shipped"
            f" verifier: {sum(ceilings) / len(ceilings):+.4f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--dev", type=Path, default=DATA / "dev_realistic.jsonl")
    parser.add_argument("--sources", type=lambda v: [s for s in v.split(",") if s])
    parser.add_argument("--labels", type=int, default=600, help="at most this many per source")
    parser.add_argument("--hebrew", type=Path, help=f"e.g. {HEBREW}")
    parser.add_argument("--hebrew-labels", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--table", action="store_true", help="print OUT/figures.json's table")
    run(parser.parse_args())


if __name__ == "__main__":
    main()
