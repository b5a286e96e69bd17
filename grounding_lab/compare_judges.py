"""Two judges side by side from one `grounding_eval --predictions` run, and whether the
difference in macro balanced accuracy is more than the noise of small sources.

    python -m grounding_lab.compare_judges PREDICTIONS DATA --old verifier --new verifier:DIR

dev_realistic weighs each source the same, and some are small (SummaC-FactCC has 7
unsupported examples, SummaC-SummEval 8): one example there moves the macro figure by
half a point. A paired bootstrap (examples resampled within each source, both judges on
the same resample) says how sure a gain is. `--new-at-optimum` scores the new judge at
its own macro-optimal threshold: what it gives once `fit_threshold` has moved its bias.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from grounding_app.metrics import (
    balanced_accuracy_at,
    macro_balanced_accuracy,
    macro_best_threshold,
    paired_bootstrap,
    roc_auc,
)
from grounding_lab.fit_threshold import read_scores


def _aligned(
    predictions: Path, data: Path, old: str, new: str
) -> dict[str, tuple[list[int], list[float], list[float]]]:
    """source -> (labels, old scores, new scores), for the examples both judges scored."""
    scores = read_scores(predictions, data)
    for judge in (old, new):
        if judge not in scores:
            raise SystemExit(f"no rows for judge {judge!r}; there are {sorted(scores)}")
    out = {}
    for source in sorted(scores[old]):
        labels, a = scores[old][source]
        labels_b, b = scores[new].get(source, ([], []))
        if labels != labels_b:
            raise SystemExit(f"{source}: the two judges did not score the same examples")
        out[source] = (labels, a, b)
    return out


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("predictions", type=Path)
    parser.add_argument("data", type=Path)
    parser.add_argument("--old", required=True)
    parser.add_argument("--new", required=True)
    parser.add_argument("--threshold", type=float, default=0.6)
    parser.add_argument("--new-at-optimum", action="store_true")
    parser.add_argument("--rounds", type=int, default=1000)
    args = parser.parse_args(argv)

    rows = _aligned(args.predictions, args.data, args.old, args.new)
    old_t = args.threshold
    new_t = args.threshold
    if args.new_at_optimum:
        new_t, _ = macro_best_threshold([(ys, b) for ys, _, b in rows.values()])
    print(f"old {args.old} at {old_t:.3f}; new {args.new} at {new_t:.3f}")
    print(
        f"{'source':<20}{'n':>5}{'unsup':>6}{'BA old':>8}{'BA new':>8}{'AUC old':>9}{'AUC new':>9}"
    )
    for source, (ys, a, b) in rows.items():
        auc_a, auc_b = roc_auc(ys, a), roc_auc(ys, b)
        print(
            f"{source:<20}{len(ys):>5}{len(ys) - sum(ys):>6}"
            f"{balanced_accuracy_at(ys, a, old_t):>8.3f}{balanced_accuracy_at(ys, b, new_t):>8.3f}"
            f"{auc_a if auc_a is not None else float('nan'):>9.3f}"
            f"{auc_b if auc_b is not None else float('nan'):>9.3f}"
        )
    olds = [(ys, a) for ys, a, _ in rows.values()]
    news = [(ys, b) for ys, _, b in rows.values()]
    aucs: list[tuple[float, float]] = []
    for ys, a, b in rows.values():
        auc_a, auc_b = roc_auc(ys, a), roc_auc(ys, b)
        if auc_a is not None and auc_b is not None:
            aucs.append((auc_a, auc_b))
    print(
        f"macro BA {macro_balanced_accuracy(olds, old_t):.3f} -> "
        f"{macro_balanced_accuracy(news, new_t):.3f}; macro AUC "
        f"{sum(x for x, _ in aucs) / len(aucs):.3f} -> {sum(y for _, y in aucs) / len(aucs):.3f}"
    )
    # The new judge at its own threshold is the same as its scores shifted to the old one.
    shifted = [[s - new_t + old_t for s in b] for _, _, b in rows.values()]
    result = paired_bootstrap(
        [ys for ys, _, _ in rows.values()],
        [a for _, a, _ in rows.values()],
        shifted,
        old_t,
        rounds=args.rounds,
    )
    print(
        f"macro BA difference {result.difference:+.3f}, 95% interval"
        f" [{result.low:+.3f}, {result.high:+.3f}], new ahead in"
        f" {100 * result.share_better:.0f}% of {args.rounds} resamples"
    )


if __name__ == "__main__":
    main()
