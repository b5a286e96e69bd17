"""Run the engine over labelled examples and summarise how well it does.

An example's `claim` is checked as an answer candidate: it may hold several sentences,
and counts as supported only when every sentence that needs a check is supported. Its
score is the lowest claim score (the weakest link), 1.0 when nothing needs a check.
With a `RecordingJudge` a prediction also keeps that weakest claim and the evidence its
score rests on, for the error report (`format_mistakes`).
"""

from __future__ import annotations

import hashlib
import random
import statistics
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Protocol, TypeVar

from grounding_app.engine import (
    CheckRequest,
    CheckResponse,
    Claim,
    ClaimInContext,
    Evidence,
    GroundingEngine,
    Judge,
    MemoEncoder,
)
from grounding_app.formats.grounding_jsonl import Example
from grounding_app.metrics import BinaryReport, binary_report


@dataclass(frozen=True)
class Judged:
    """One (claim, evidence) pair a judge read, with the score it gave."""

    claim: ClaimInContext
    evidence: Evidence
    score: float


@dataclass
class RecordingJudge:
    """Passes pairs to a judge and keeps each pair with its score.

    A response shows evidence only for supported claims (its citations), but a false
    "unsupported" needs the evidence it was judged on just as much. Wrapping the judge
    keeps this out of the engine, so requests never pay for it.
    """

    inner: Judge
    judged: list[Judged] = field(default_factory=list)

    def score(
        self, pairs: Sequence[tuple[ClaimInContext, Evidence]], encoder: MemoEncoder | None = None
    ) -> list[float]:
        scores = self.inner.score(pairs, encoder)
        self.judged.extend(
            Judged(claim, evidence, score)
            for (claim, evidence), score in zip(pairs, scores, strict=True)
        )
        return scores


def recording(engine: GroundingEngine) -> tuple[GroundingEngine, RecordingJudge]:
    """The same engine with its judge wrapped in a `RecordingJudge`."""
    recorder = RecordingJudge(engine.judge)
    return GroundingEngine(engine.encoder, recorder, engine.settings), recorder


@dataclass(frozen=True)
class Prediction:
    id: str
    source: str
    label: int | None
    supported: bool
    score: float
    seconds: float
    claim: str = ""  # the weakest checked sentence, or the example's claim (with a recorder)
    evidence: str = ""  # what its score rests on (with a recorder)


def _evidence(response: CheckResponse, claim: Claim, judged: Sequence[Judged]) -> str:
    """The claim's cited chunks; else the evidence the judge gave the claim's score.

    A claim's score is the best score the judge gave any of its evidence options, so the
    option with exactly that score is the one it rests on (the judge reads the claim
    normalised, so its text would not match the sentence). No option has it when the
    engine lowered the score after the judge (the evidence puts another name or number
    where the claim has one): the option the judge scored best is shown, marked so.
    """
    if claim.citation_indices:
        return " … ".join(response.cited_chunks[i].chunk_text for i in claim.citation_indices)
    if not judged:
        return ""
    exact = [j for j in judged if j.score == claim.score]
    best = exact[0] if exact else max(judged, key=lambda j: j.score)
    attributes = "; ".join(f"{key}: {value}" for key, value in best.evidence.attributes.items())
    passages = " ".join(best.evidence.passages)
    text = f"[{attributes}] {passages}" if attributes else passages
    return text if exact else f"(score lowered after the judge: {best.score:.3f} before) {text}"


def predict(
    check: Callable[[CheckRequest], CheckResponse],
    example: Example,
    threshold: float,
    recorder: RecordingJudge | None = None,
) -> Prediction:
    """Check one example; `recorder`, the judge of `check`'s engine, adds the evidence."""
    if recorder is not None:
        recorder.judged.clear()
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
    score, lowest = response.weakest_score(), response.weakest()
    claim = evidence = ""
    if recorder is not None:
        if lowest is None:
            claim, evidence = example.claim, "(no sentence needs a check)"
        else:
            claim, evidence = lowest.text, _evidence(response, lowest, recorder.judged)
    return Prediction(
        id=example.id,
        source=example.source,
        label=example.label,
        supported=score >= threshold,
        score=score,
        seconds=elapsed,
        claim=claim,
        evidence=evidence,
    )


class HasSource(Protocol):
    @property
    def source(self) -> str: ...


Sourced = TypeVar("Sourced", bound=HasSource)


def sample_per_source(examples: Iterable[Sourced], n: int, seed: int = 0) -> list[Sourced]:
    """At most n examples (or whole answers) of each source, drawn with a fixed seed, in
    file order."""
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


def mistakes(
    predictions: Iterable[Prediction], n: int
) -> dict[str, tuple[list[Prediction], list[Prediction]]]:
    """Per source, the n most confident mistakes of each kind.

    (false supports, highest score first; false unsupporteds, lowest score first).
    """
    by_source: dict[str, tuple[list[Prediction], list[Prediction]]] = defaultdict(lambda: ([], []))
    for p in predictions:
        if p.label == 0 and p.supported:
            by_source[p.source][0].append(p)
        elif p.label == 1 and not p.supported:
            by_source[p.source][1].append(p)
    return {
        source: (
            sorted(false_supports, key=lambda p: -p.score)[:n],
            sorted(false_unsupported, key=lambda p: p.score)[:n],
        )
        for source, (false_supports, false_unsupported) in sorted(by_source.items())
    }


def _clip(text: str, width: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def format_mistakes(predictions: Iterable[Prediction], n: int, width: int = 300) -> str:
    """The error report: per source, what was called supported and was not, and back."""
    lines: list[str] = []
    for source, kinds in mistakes(predictions, n).items():
        for title, items in zip(
            ("false supports, highest scores", "false unsupporteds, lowest scores"),
            kinds,
            strict=True,
        ):
            if not items:
                continue
            lines.append(f"== {source}: {title} ==")
            for p in items:
                lines.append(f"  score {p.score:.3f}  label {p.label}  {p.id}")
                lines.append(f"    claim:    {_clip(p.claim, width)}")
                lines.append(f"    evidence: {_clip(p.evidence, width) or '(none)'}")
    return "\n".join(lines) if lines else "no mistakes"


def document_half(example: Example) -> str:
    """'select' or 'report': a fixed half by document (the facts' text), so that choices
    made on one half are reported once on the other and no document sits in both."""
    text = "\n".join(fact.text for fact in example.facts)
    digest = hashlib.sha1(text.encode("utf-8", "surrogatepass")).digest()
    return "select" if digest[0] % 2 == 0 else "report"
