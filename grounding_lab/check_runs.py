"""Record the engine's every evidence option on a labelled file, so that check reports and
aggregator fits run offline, without reading the model again.

    python -m grounding_lab.check_runs ../shared/data/grounding/dev_realistic.jsonl \
        --out var/runs/dev_realistic.jsonl

One line per example: its label, source, half (`evaluation.document_half`, by the facts'
text), the engine's score (the weakest checked claim, as `grounding_eval` scores it) and per
checked claim its language and the options it was read against. An option holds the
judge's probability before any check's penalty, the aggregator's features (claims the
verifier reads) and the NAMES of the checks that fired on it. `OUT.meta.json` holds the
checks' kinds, the kinds' penalties, the time taken, and how many examples replaying the
shipped checks (`example_score`) does not reproduce (it should be none).

The engine is not changed for this: its checks are wrapped so each firing is logged, its
`recorder` takes the verifier path's features, and its word-matching judge is wrapped so
the scores of claims in languages the verifier does not read are kept too.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
import time
from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from tqdm import tqdm

from grounding_app.engine import (
    AGGREGATE_FEATURES,
    DEFAULT_CITATION_THRESHOLD,
    WORD_MATCHING,
    CheckRequest,
    GroundingEngine,
)
from grounding_app.engine.aggregate import Aggregator
from grounding_app.engine.checks import (
    CONTRADICTION,
    HEDGE,
    NUMBER,
    ROLE,
    Check,
    Reading,
    all_checks,
    registry,
)
from grounding_app.formats.grounding_jsonl import Example, read_examples
from grounding_app.metrics import macro_balanced_accuracy, roc_auc
from grounding_lab.evaluation import document_half

Run = dict[str, Any]  # one recorded example, as written

# The aggregator's feature for each check kind, as `pipeline._judge_claims` writes them.
KIND_FEATURES = {
    CONTRADICTION: "contradiction",
    ROLE: "role",
    HEDGE: "hedge",
    NUMBER: "missing_number",
}
# Kinds word matching weighs itself, as a fitted feature: no penalty on its options.
WORD_MATCHING_WEIGHS = frozenset({NUMBER})
Option = dict[
    str, Any
]  # {"p": probability before penalties, "x": features | None, "checks": names}


@dataclass
class _Log:
    """What one request did: check calls in order, verifier options, word-match reads."""

    readings: list[Reading] = field(default_factory=list)
    calls: list[tuple[int, str, bool]] = field(default_factory=list)  # reading, check, fired
    judged: dict[int, list[Option]] = field(default_factory=dict)
    matched: list[tuple[list[str], list[float], int]] = field(default_factory=list)

    def clear(self) -> None:
        self.readings.clear()
        self.calls.clear()
        self.judged.clear()
        self.matched.clear()

    def take_fired(self) -> list[str]:
        """The checks fired since the last take (the verifier path's one reading)."""
        names = [name for _, name, hit in self.calls if hit]
        self.calls.clear()
        return names


def _logged(check: Check, log: _Log) -> Check:
    def fires(reading: Reading) -> bool:
        hit = check.fires(reading)
        # The pipeline runs every check on one reading in a row: a new object, a new reading.
        if not log.readings or log.readings[-1] is not reading:
            log.readings.append(reading)
        log.calls.append((len(log.readings) - 1, check.name, hit))
        return hit

    return replace(check, fires=fires)


class _MatchLog:
    """The engine's word-matching judge, keeping each claim's option texts and scores."""

    def __init__(self, inner: Any, log: _Log) -> None:
        self._inner = inner
        self._log = log

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def score(self, claim: str, evidence: Sequence[str], profile: Any) -> list[float]:
        scores: list[float] = self._inner.score(claim, evidence, profile)
        # A copy: the pipeline lowers the returned scores in place by the checks' penalties.
        self._log.matched.append((list(evidence), list(scores), len(self._log.calls)))
        return scores


def _match_options(
    texts: Sequence[str],
    scores: Sequence[float],
    calls: Sequence[tuple[int, str, bool]],
    readings: Sequence[Reading],
) -> list[Option]:
    """Word-matching options with the checks fired on each. The engine reads the checks once
    per fact, on the fact's whole text, in the order its options first meet the fact: an
    option takes the first reading met so far that holds its text, else the next one."""
    order = list(dict.fromkeys(r for r, _, _ in calls))
    fired = {r: [name for rid, name, hit in calls if rid == r and hit] for r in order}
    met: list[int] = []
    options: list[Option] = []
    for text, score in zip(texts, scores, strict=True):

        def holds(r: int, text: str = text) -> bool:
            return any(text == p or text.startswith(p + " ") for p in readings[r].passages)

        seen = [r for r in met if holds(r)]
        if seen:
            reading: int | None = seen[0]
        else:
            reading = order[len(met)] if len(met) < len(order) else None
            if reading is not None:
                met.append(reading)
        names = fired[reading] if reading is not None else []
        options.append({"p": score, "x": None, "checks": names})
    return options


def _discount(probability: float, penalty: float) -> float:
    """As the pipeline lowers a judge's probability by a check's penalty, in logits."""
    return probability / (probability + (1.0 - probability) * math.exp(penalty))


def option_score(
    option: Option,
    on: Collection[str],
    kinds: Mapping[str, str],
    penalties: Mapping[str, float],
    aggregator: Aggregator | None = None,
    features: Sequence[str] = AGGREGATE_FEATURES,
) -> float:
    """An option's score with only the checks in `on`: the aggregator's (its check features
    rebuilt from those checks) where it has features, else the penalised probability."""
    fired = {kinds[name] for name in option["checks"] if name in on}
    if option["x"] is not None:
        if aggregator is not None:
            x = list(option["x"])
            for kind, feature in KIND_FEATURES.items():
                x[features.index(feature)] = float(kind in fired)
            return aggregator.score(x)
    else:
        fired -= WORD_MATCHING_WEIGHS
    return _discount(option["p"], sum(penalties[kind] for kind in fired))


def example_score(
    run: Run,
    on: Mapping[str, Collection[str]],
    kinds: Mapping[str, str],
    penalties: Mapping[str, float],
    aggregator: Aggregator | None = None,
) -> float:
    """The weakest checked claim's best option, 1.0 when nothing needs a check; `on` maps
    each check on to the languages it runs for, as `checks.registry()` does."""
    scores = []
    for claim in run["claims"]:
        names = {name for name, languages in on.items() if claim["language"] in languages}
        scores.append(
            max(
                (option_score(o, names, kinds, penalties, aggregator) for o in claim["options"]),
                default=0.0,
            )
        )
    return min(scores, default=1.0)


def checks_on(checks: Iterable[Check]) -> dict[str, frozenset[str]]:
    """Each check's name with the languages it runs for."""
    return {c.name: c.languages for c in checks}


def macro_figures(
    runs: Sequence[Run],
    on: Mapping[str, Collection[str]],
    kinds: Mapping[str, str],
    penalties: Mapping[str, float],
    aggregator: Aggregator | None = None,
) -> dict[str, float]:
    """Macro balanced accuracy at the default threshold and macro ROC AUC over sources."""
    groups: dict[str, tuple[list[int], list[float]]] = {}
    for run in runs:
        labels, scores = groups.setdefault(run["source"], ([], []))
        labels.append(int(run["label"]))
        scores.append(example_score(run, on, kinds, penalties, aggregator))
    usable = [(ys, ps) for ys, ps in groups.values() if 0 < sum(ys) < len(ys)]
    aucs = [a for a in (roc_auc(ys, ps) for ys, ps in usable) if a is not None]
    return {
        "examples": len(runs),
        "macro_ba": round(macro_balanced_accuracy(usable, DEFAULT_CITATION_THRESHOLD), 4),
        "macro_auc": round(sum(aucs) / max(1, len(aucs)), 4),
    }


def record(engine: GroundingEngine, examples: Iterable[Example], sink: Any) -> int:
    """Write each example's run to `sink`; the count of runs replay does not reproduce."""
    log = _Log()
    engine.checks = tuple(_logged(c, log) for c in all_checks() if c in engine.checks)
    engine.word_match = _MatchLog(engine.word_match, log)  # type: ignore[assignment]

    def keep(claim: int, features: tuple[float, ...]) -> None:
        option = {"p": 1.0 / (1.0 + math.exp(-features[0])), "x": list(features)}
        log.judged.setdefault(claim, []).append({**option, "checks": log.take_fired()})

    engine.recorder = keep
    kinds, penalties, on = check_kinds(), engine._penalties(), checks_on(engine.checks)
    mismatches = 0
    for example in examples:
        log.clear()
        response = engine.check(
            CheckRequest(example.claim, example.facts, enable_claim_level_score=True)
        )
        marks = [start for _, _, start in log.matched] + [len(log.calls)]
        matched = [
            _match_options(texts, scores, log.calls[start:end], log.readings)
            for (texts, scores, start), end in zip(log.matched, marks[1:], strict=True)
        ]
        claims = []
        for i, claim in enumerate(response.claims):
            if not claim.grounding_check_required:
                continue
            if claim.checked_by == WORD_MATCHING:
                # Claims without evidence options never reach the judge (score 0).
                options = matched.pop(0) if claim.score and matched else []
            else:
                options = log.judged.get(i, [])
            claims.append({"language": claim.language, "by": claim.checked_by, "options": options})
        checked = [c.score for c in response.claims if c.grounding_check_required]
        score = min((s or 0.0 for s in checked), default=1.0)
        run = {
            "id": example.id,
            "source": example.source,
            "label": example.label,
            "half": document_half(example),
            "score": score,
            "claims": claims,
        }
        if abs(example_score(run, on, kinds, penalties) - score) > 1e-6 or matched:
            mismatches += 1
            run["replay_differs"] = True
        sink.write(json.dumps(run) + "\n")
    return mismatches


def sample_by_id(examples: Sequence[Example], per_source: int, skip: int = 0) -> list[Example]:
    """Each source's examples `skip` to `skip + per_source` in order of the SHA-1 of their
    id: deterministic (how fit_unseen's own examples were drawn, no seed), and a later run
    with `skip` extends an earlier one without a repeat."""
    ranked = sorted(examples, key=lambda e: hashlib.sha1(e.id.encode("utf-8")).hexdigest())
    seen: dict[str, int] = defaultdict(int)
    kept = []
    for example in ranked:
        seen[example.source] += 1
        if skip < seen[example.source] <= skip + per_source:
            kept.append(example)
    return kept


def check_kinds() -> dict[str, str]:
    """Every check's kind, by name."""
    return {c.name: c.kind for c in all_checks()}


def read_runs(path: Path) -> tuple[list[Run], dict[str, Any]]:
    runs = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    meta = json.loads(path.with_suffix(".meta.json").read_text(encoding="utf-8"))
    return runs, meta


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--limit", type=int, default=0, help="0: every example")
    parser.add_argument(
        "--per-source", type=int, default=0, help="the first N of each source by SHA-1 of id"
    )
    parser.add_argument("--skip", type=int, default=0, help="with --per-source: after the first N")
    parser.add_argument("--sources", nargs="+", help="only these sources")
    parser.add_argument("--half", choices=("select", "report"), help="one half by document")
    parser.add_argument("--append", action="store_true", help="add to OUT and its meta")
    args = parser.parse_args(argv)
    examples = [e for e in read_examples(args.data) if e.label is not None]
    if args.sources:
        examples = [e for e in examples if e.source in args.sources]
    if args.half:
        examples = [e for e in examples if document_half(e) == args.half]
    if args.per_source:
        examples = sample_by_id(examples, args.per_source, args.skip)
    if args.limit:
        examples = examples[: args.limit]
    engine = GroundingEngine.default()
    engine.checks = tuple(all_checks())
    args.out.parent.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    with args.out.open("a" if args.append else "w", encoding="utf-8") as sink:
        mismatches = record(engine, tqdm(examples, desc=args.data.name, file=sys.stderr), sink)
    seconds = time.perf_counter() - started
    sample = {
        "per_source": args.per_source,
        "skip": args.skip,
        "sources": args.sources or "all",
        "half": args.half or "both",
        "examples": len(examples),
        "seconds": round(seconds, 1),
        "replay_differs": mismatches,
    }
    before = read_runs(args.out)[1] if args.append else {"runs": []}
    meta = {
        "data": args.data.name,
        "runs": [*before["runs"], sample],
        "examples": sum(r["examples"] for r in [*before["runs"], sample]),
        "seconds": round(sum(r["seconds"] for r in [*before["runs"], sample]), 1),
        "replay_differs": sum(r["replay_differs"] for r in [*before["runs"], sample]),
        "kinds": check_kinds(),
        "penalties": engine._penalties(),
        "features": list(AGGREGATE_FEATURES),
        "shipped_on": sorted(c.name for c in registry()),
    }
    args.out.with_suffix(".meta.json").write_text(json.dumps(meta, indent=2) + "\n")
    print(
        f"{args.data.name}: {len(examples)} examples in {seconds:.1f} s,"
        f" replay differs on {mismatches}"
    )


if __name__ == "__main__":
    main()
