"""Each labelled sentence scored inside its whole answer and alone, and the figures of both.

People paste whole answers, but the engine is measured one claim at a time. Here an
answer is checked as one request and each labelled sentence again as a request of its
own, with the same facts, so the same sentences are scored both ways. In the answer a
sentence's score is the weakest checked claim that overlaps its byte span: the engine
may split one sentence into several claims ("split"), or read it in one claim with
another labelled sentence ("joined", both get that claim's score); both are counted. A
sentence no checked claim covers is "unchecked": it is counted apart, and in the figures
it scores 1.0, as a response shows it (not flagged), so both columns hold the same
sentences.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from grounding_app.engine import CheckRequest, CheckResponse, Claim
from grounding_app.metrics import balanced_accuracy_at, roc_auc
from grounding_lab.whole_answers import Sentence, WholeAnswer

HALVES = ("select", "report", "all")
WAYS = ("whole", "alone")


@dataclass(frozen=True)
class SentenceScore:
    id: str  # the answer's
    source: str
    half: str
    index: int  # of the labelled sentence in the answer
    label: int
    score_whole: float | None  # None: no checked claim covers it
    score_alone: float | None
    claims_whole: int = 1  # checked claims of the answer that cover it
    joined: bool = False  # one of them covers another labelled sentence too

    def score(self, way: str) -> float:
        value = self.score_whole if way == "whole" else self.score_alone
        return 1.0 if value is None else value


def covering(response: CheckResponse, start: int, end: int) -> list[Claim]:
    """The checked claims overlapping bytes [start, end)."""
    return [
        c
        for c in response.claims
        if c.grounding_check_required and c.score is not None and c.start < end and c.end > start
    ]


def covering_score(response: CheckResponse, start: int, end: int) -> float | None:
    """The weakest checked claim overlapping bytes [start, end); None if none does."""
    scores = [c.score for c in covering(response, start, end) if c.score is not None]
    return min(scores) if scores else None


def alone_score(response: CheckResponse) -> float | None:
    """A sentence checked alone: its weakest checked claim; None if nothing was checked."""
    weakest = response.weakest()
    return weakest.score if weakest is not None else None


def score_answer(
    check: Callable[[CheckRequest], CheckResponse], answer: WholeAnswer, threshold: float
) -> list[SentenceScore]:
    """One request for the answer, then one per labelled sentence."""

    def request(text: str) -> CheckResponse:
        return check(
            CheckRequest(
                answer=text,
                facts=answer.facts,
                citation_threshold=threshold,
                enable_claim_level_score=True,
            )
        )

    whole = request(answer.answer)

    def scored(index: int, sentence: Sentence) -> SentenceScore:
        claims = covering(whole, sentence.start, sentence.end)
        others = [s for i, s in enumerate(answer.sentences) if i != index]
        return SentenceScore(
            id=answer.id,
            source=answer.source,
            half=answer.half,
            index=index,
            label=sentence.label,
            score_whole=covering_score(whole, sentence.start, sentence.end),
            score_alone=alone_score(request(sentence.text)),
            claims_whole=len(claims),
            joined=any(c.start < s.end and c.end > s.start for c in claims for s in others),
        )

    return [scored(i, s) for i, s in enumerate(answer.sentences)]


def _share(flags: Sequence[bool]) -> float | None:
    return sum(flags) / len(flags) if flags else None


def way_figures(
    labels: Sequence[int], scores: Sequence[float], threshold: float
) -> dict[str, float | None]:
    """BA and AUC, and the reviewer's two figures at `threshold`: false alarms (share of
    supported sentences flagged) and recall (share of unsupported ones flagged)."""
    flagged = [s < threshold for s in scores]
    both = 0 < sum(labels) < len(labels)
    return {
        "balanced_accuracy": balanced_accuracy_at(labels, scores, threshold) if both else None,
        "roc_auc": roc_auc(labels, scores),
        "false_alarms": _share([f for f, y in zip(flagged, labels, strict=True) if y == 1]),
        "recall": _share([f for f, y in zip(flagged, labels, strict=True) if y == 0]),
    }


def group_figures(rows: Sequence[SentenceScore], threshold: float) -> dict[str, Any]:
    labels = [r.label for r in rows]
    figures: dict[str, Any] = {
        "answers": len({r.id for r in rows}),
        "sentences": len(rows),
        "supported": sum(labels),
        "unsupported": len(labels) - sum(labels),
        "unchecked_whole": sum(r.score_whole is None for r in rows),
        "unchecked_alone": sum(r.score_alone is None for r in rows),
        "split_whole": sum(r.claims_whole > 1 for r in rows),
        "joined_whole": sum(r.joined for r in rows),
    }
    for way in WAYS:
        figures[way] = way_figures(labels, [r.score(way) for r in rows], threshold)
    return figures


def figures(
    rows: Iterable[SentenceScore], threshold: float
) -> dict[str, dict[str, dict[str, Any]]]:
    """source -> half (select, report, all) -> the group's figures; empty halves left out."""
    groups: dict[str, dict[str, list[SentenceScore]]] = defaultdict(lambda: defaultdict(list))
    for row in rows:
        groups[row.source][row.half].append(row)
        groups[row.source]["all"].append(row)
    return {
        source: {
            half: group_figures(halves[half], threshold) for half in HALVES if halves.get(half)
        }
        for source, halves in sorted(groups.items())
    }


def _cell(value: object) -> str:
    return f"{value:.3f}" if isinstance(value, float) else "-"


def format_table(found: dict[str, dict[str, dict[str, Any]]], threshold: float) -> str:
    """One line per source and half: counts (unchecked in the answer / alone, split /
    joined in the answer), then each figure in the answer / alone."""
    figures_in = ("balanced_accuracy", "roc_auc", "false_alarms", "recall")
    titles = ("BA", "AUC", f"false alarms <{threshold:g}", "recall")
    header = (
        f"{'source':<18} {'half':<7} {'sent':>5} {'1/0':>9} {'unchecked':>9} {'split/join':>10}"
    )
    header += "".join(f" {title + ' w/a':>22}" for title in titles)
    lines = [header, "-" * len(header)]
    for source, halves in found.items():
        for half, f in halves.items():
            counts = (
                f"{f['sentences']:>5} {str(f['supported']) + '/' + str(f['unsupported']):>9}"
                f" {str(f['unchecked_whole']) + '/' + str(f['unchecked_alone']):>9}"
                f" {str(f['split_whole']) + '/' + str(f['joined_whole']):>10}"
            )
            cells = "".join(
                f" {_cell(f['whole'][key]) + ' / ' + _cell(f['alone'][key]):>22}"
                for key in figures_in
            )
            lines.append(f"{source:<18} {half:<7} {counts}{cells}")
    return "\n".join(lines)
