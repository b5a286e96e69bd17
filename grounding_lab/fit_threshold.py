"""Where a judge's best threshold lies on labelled data, and a verifier's bias moved so
that it lies at the default `citationThreshold` (0.6).

    python -m grounding_lab.fit_threshold PREDICTIONS DATA [--half H] [--sources S ...]
        [--whole WHOLE_PREDICTIONS ANSWERS ...] [--verifier DIR]

PREDICTIONS is `grounding_eval --predictions` or `check_runs` output: the engine's final
scores, after retrieval, windows and the checks, so the threshold is the one a request
meets (calibrating pairs alone, as `package_verifier` does, leaves it some way off). The
shipped verifier's is fitted on fit_unseen's fit half (`--half select --sources
check_covid diasumfact_qmsum`): data no verifier trained on, its other half reported.
The optimum is the macro one, each source weighing the same, as the acceptance figure
is. `--whole` adds, per source, the sentences of whole answers as checked inside their
answer (`grounding_eval --whole-answers --predictions` on a `whole_answers` set), of the
same half: a group of their own, since a reviewer reads sentences in answers. Moving the
bias shifts every logit by the same amount: the ranking, and so AUC and the best balanced
accuracy, stay exactly as they were; only where 0.6 cuts moves.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

from grounding_app.formats.grounding_jsonl import read_examples
from grounding_app.metrics import macro_best_threshold
from grounding_app.verifiers.adapt.calibrate import DEFAULT_THRESHOLD, bias_shift
from grounding_lab.evaluation import document_half


def read_scores(
    predictions: Path,
    data: Path,
    half: str | None = None,
    sources: Sequence[str] = (),
) -> dict[str, dict[str, tuple[list[int], list[float]]]]:
    """judge -> source -> (labels, scores) for the labelled examples predicted, of one
    half by document and of `sources` where given."""
    examples = {
        e.id: e
        for e in read_examples(data)
        if e.label is not None
        and (half is None or document_half(e) == half)
        and (not sources or e.source in sources)
    }
    out: dict[str, dict[str, tuple[list[int], list[float]]]] = defaultdict(
        lambda: defaultdict(lambda: ([], []))
    )
    for line in predictions.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        example = examples.get(row["id"])
        if example is None:
            continue
        labels, scores = out[row.get("judge", "engine")][example.source]
        labels.append(int(example.label or 0))
        scores.append(float(row["score"]))
    return out


def read_whole_scores(
    predictions: Path, answers: Path, half: str | None = None
) -> dict[str, tuple[list[int], list[float]]]:
    """ "whole:SOURCE" -> (labels, scores) of the labelled sentences of whole answers as
    checked in their answer, of one half; a sentence the answer left unchecked counts as
    not flagged (1.0), as the reviewer sees it."""
    sets = {}
    for line in answers.read_text(encoding="utf-8").splitlines():
        answer = json.loads(line)
        sets[answer["id"]] = answer
    out: dict[str, tuple[list[int], list[float]]] = defaultdict(lambda: ([], []))
    for line in predictions.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        answer = sets.get(row["id"])
        if answer is None or (half is not None and answer["half"] != half):
            continue
        labels, scores = out[f"whole:{answer['source']}"]
        labels.append(int(row["label"]))
        scores.append(1.0 if row["score_whole"] is None else float(row["score_whole"]))
    return dict(out)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("predictions", type=Path)
    parser.add_argument("data", type=Path)
    parser.add_argument("--judge", help="the judge whose rows count (default: the only one)")
    parser.add_argument("--verifier", type=Path, help="verifier dir whose bias is moved")
    parser.add_argument("--target", type=float, default=DEFAULT_THRESHOLD)
    parser.add_argument("--half", choices=("select", "report"), help="one half by document")
    parser.add_argument("--sources", nargs="+", default=[], help="only these sources")
    parser.add_argument(
        "--whole",
        nargs=2,
        action="append",
        default=[],
        type=Path,
        metavar=("PREDICTIONS", "ANSWERS"),
        help="whole-answer sentence scores and their set, a group per source",
    )
    args = parser.parse_args(argv)

    scores = read_scores(args.predictions, args.data, args.half, args.sources)
    for predictions, answers in args.whole:
        for sources in scores.values():
            sources.update(read_whole_scores(predictions, answers, args.half))
    for judge, sources in scores.items():
        t, accuracy = macro_best_threshold(list(sources.values()))
        print(f"{judge}: macro optimum {t:.3f} (balanced accuracy {accuracy:.4f})")
    if args.verifier is None:
        return
    judge = args.judge or (next(iter(scores)) if len(scores) == 1 else "")
    if judge not in scores:
        parser.error(f"--judge must name one of {sorted(scores)}")
    best, _ = macro_best_threshold(list(scores[judge].values()))
    path = args.verifier / "verifier.json"
    config = json.loads(path.read_text())
    shift = bias_shift(best, float(config["temperature"]), args.target)
    config["bias"] = float(config["bias"]) + shift
    where = " ".join(
        [args.data.name]
        + ([f"{args.half} half"] if args.half else [])
        + ([f"({', '.join(args.sources)})"] if args.sources else [])
        + [f"+ whole answers {answers.name}" for _, answers in args.whole]
    )
    config["threshold_fitted_on"] = f"{where}: macro optimum {best:.3f} -> {args.target}"
    path.write_text(json.dumps(config, indent=2) + "\n")
    print(f"{path}: bias moved by {shift:+.4f} to {config['bias']:.4f}")


if __name__ == "__main__":
    main()
