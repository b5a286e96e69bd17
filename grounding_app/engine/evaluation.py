"""Run the engine over labelled examples and summarise how well it does.

An example's `claim` is checked as an answer candidate: it may hold several sentences,
and counts as supported only when every sentence that needs a check is supported. Its
score is the lowest claim score (the weakest link), 1.0 when nothing needs a check.
"""

from __future__ import annotations

import random
import statistics
import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass

from grounding_app.engine.dataset import Example
from grounding_app.engine.metrics import BinaryReport, binary_report
from grounding_app.engine.types import CheckRequest, CheckResponse


@dataclass(frozen=True)
class Prediction:
    id: str
    source: str
    label: int | None
    supported: bool
    score: float
    seconds: float


def predict(
    check: Callable[[CheckRequest], CheckResponse], example: Example, threshold: float
) -> Prediction:
    started = time.perf_counter()
    response = check(
        CheckRequest(
            answer=example.claim,
            facts=example.facts,
            citation_threshold=threshold,
            enable_claim_level_score=True,
        )
    )
    elapsed = time.perf_counter() - started
    scores = [
        c.score for c in response.claims if c.grounding_check_required and c.score is not None
    ]
    score = min(scores) if scores else 1.0
    return Prediction(
        id=example.id,
        source=example.source,
        label=example.label,
        supported=score >= threshold,
        score=score,
        seconds=elapsed,
    )


def sample_per_source(examples: Iterable[Example], n: int, seed: int = 0) -> list[Example]:
    """At most n examples of each source, drawn with a fixed seed, in file order."""
    by_source: dict[str, list[int]] = defaultdict(list)
    items = list(examples)
    for i, example in enumerate(items):
        by_source[example.source].append(i)
    rng = random.Random(seed)
    keep = {
        i
        for source in sorted(by_source)
        for i in rng.sample(by_source[source], min(n, len(by_source[source])))
    }
    return [e for i, e in enumerate(items) if i in keep]


@dataclass(frozen=True)
class GroupReport:
    name: str
    n: int
    median_ms: float
    metrics: BinaryReport | None  # None without labels

    def as_dict(self) -> dict[str, object]:
        data: dict[str, object] = {"name": self.name, "n": self.n, "median_ms": self.median_ms}
        if self.metrics is not None:
            data.update(asdict(self.metrics))
        return data


def _group(name: str, predictions: list[Prediction]) -> GroupReport:
    labelled = [p for p in predictions if p.label is not None]
    metrics = None
    if labelled:
        metrics = binary_report(
            [int(p.label or 0) for p in labelled],
            [p.supported for p in labelled],
            [p.score for p in labelled],
        )
    return GroupReport(
        name=name,
        n=len(predictions),
        median_ms=statistics.median(p.seconds for p in predictions) * 1000 if predictions else 0.0,
        metrics=metrics,
    )


def summarise(name: str, predictions: Iterable[Prediction]) -> list[GroupReport]:
    """One report for all, then one per source, then the macro average over sources."""
    items = list(predictions)
    by_source: dict[str, list[Prediction]] = defaultdict(list)
    for p in items:
        by_source[p.source].append(p)
    reports = [_group(name, items)]
    if len(by_source) > 1:
        per_source = [_group(f"  {source}", by_source[source]) for source in sorted(by_source)]
        reports.extend(per_source)
        labelled = [r.metrics for r in per_source if r.metrics is not None]
        if labelled:
            aucs = [m.roc_auc for m in labelled if m.roc_auc is not None]
            reports.append(
                GroupReport(
                    name="  macro average",
                    n=sum(r.n for r in per_source),
                    median_ms=statistics.median(r.median_ms for r in per_source),
                    metrics=BinaryReport(
                        n=sum(m.n for m in labelled),
                        balanced_accuracy=statistics.fmean(m.balanced_accuracy for m in labelled),
                        unsupported_precision=statistics.fmean(
                            m.unsupported_precision for m in labelled
                        ),
                        unsupported_recall=statistics.fmean(m.unsupported_recall for m in labelled),
                        roc_auc=statistics.fmean(aucs) if aucs else None,
                    ),
                )
            )
    return reports


def format_table(reports: Iterable[GroupReport]) -> str:
    header = (
        f"{'set':<24} {'n':>6} {'bal.acc':>8} {'P(unsup)':>9} {'R(unsup)':>9}"
        f" {'AUC':>6} {'med ms':>8}"
    )
    lines = [header, "-" * len(header)]
    for r in reports:
        m = r.metrics
        if m is None:
            lines.append(
                f"{r.name:<24} {r.n:>6} {'-':>8} {'-':>9} {'-':>9} {'-':>6} {r.median_ms:>8.1f}"
            )
            continue
        auc = f"{m.roc_auc:.3f}" if m.roc_auc is not None else "-"
        lines.append(
            f"{r.name:<24} {r.n:>6} {m.balanced_accuracy:>8.3f} {m.unsupported_precision:>9.3f}"
            f" {m.unsupported_recall:>9.3f} {auc:>6} {r.median_ms:>8.1f}"
        )
    return "\n".join(lines)
