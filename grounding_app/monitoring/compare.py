"""Two runs side by side: the answers of two batch jobs matched by their id.

A line without an id cannot be matched and is only counted. Claims of a matched pair are
matched by their text (the n-th occurrence of a text before with the n-th after), so an
answer re-checked by another verifier shows each claim's verdict and score both times; a
claim found on one side only (the answer changed) is listed with the other side empty.
"""

from __future__ import annotations

import heapq
import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import islice
from typing import Any

from django.db.models import Count, Exists, OuterRef, Q, QuerySet, Subquery

from grounding_app.batch.exports import claims_of
from grounding_app.batch.models import BatchJob, BatchLine
from grounding_app.common.importing import NOT_CHECKABLE
from grounding_app.formats.csv_cells import csv_line

SHOWN = 200  # changed answers listed on the page; the exports carry all
CHUNK = 500  # matched answers whose lines are read at once

_FIELDS = (
    "number",
    "external_id",
    "summary",
    "support_score",
    "claim_count",
    "unsupported_count",
    "result",
)
# How bad an answer's verdict is: a move to a higher rank is a regression.
_RANK = {"supported": 0, "partial": 1, "unsupported": 2}


@dataclass(frozen=True)
class ClaimPair:
    text: str
    before_verdict: str
    before_score: float | None
    after_verdict: str
    after_score: float | None

    @property
    def changed(self) -> bool:
        return self.before_verdict != self.after_verdict


@dataclass(frozen=True)
class AnswerPair:
    id: str
    before: BatchLine
    after: BatchLine
    claims: tuple[ClaimPair, ...]

    @property
    def changed(self) -> bool:
        return self.verdict_changed or any(c.changed for c in self.claims)

    @property
    def verdict_changed(self) -> bool:
        return self.before.summary != self.after.summary

    @property
    def regression(self) -> tuple[int, float, int]:
        """How much worse the answer got, compared largest first: the verdict's move
        (partial to unsupported is 1, supported to unsupported 2), the support score's
        fall, then the claims that became unsupported. An answer not checkable on either
        side (its sources came without text) is neither better nor worse: its missing
        score is no fall."""
        if NOT_CHECKABLE in (self.before.summary, self.after.summary):
            return 0, 0.0, 0
        ranks = _RANK.get(self.after.summary, 1) - _RANK.get(self.before.summary, 1)
        fall = (self.before.support_score or 0.0) - (self.after.support_score or 0.0)
        worse = sum(1 for c in self.claims if c.after_verdict == "unsupported" != c.before_verdict)
        return ranks, round(fall, 6), worse


@dataclass
class Figures:
    """One run's figures over the matched answers, as the trends page counts them: an
    answer not checkable is counted apart, in no rate."""

    answers: int = 0
    not_checkable: int = 0
    claims: int = 0
    unsupported: int = 0
    scored: int = 0
    score_sum: float = 0.0

    def add(self, line: BatchLine) -> None:
        if line.summary == NOT_CHECKABLE:
            self.not_checkable += 1
            return
        self.answers += 1
        self.claims += line.claim_count
        self.unsupported += line.unsupported_count
        if line.support_score is not None:
            self.scored += 1
            self.score_sum += line.support_score

    @property
    def rate(self) -> float | None:
        """Unsupported claims over checked claims."""
        return self.unsupported / self.claims if self.claims else None

    @property
    def mean_score(self) -> float | None:
        return self.score_sum / self.scored if self.scored else None


@dataclass(frozen=True)
class Move:
    """One headline figure: its value after, and how it moved from before, in words."""

    name: str
    key: str
    after: str
    move: str


def _move(
    name: str,
    key: str,
    before: float | None,
    after: float | None,
    *,
    percent: bool,
    up_is_good: bool,
) -> Move:
    def shown(value: float) -> str:
        return f"{value:.1%}" if percent else f"{value:.2f}"

    if after is None:
        return Move(
            name,
            key,
            "—",
            "nothing to measure after"
            if before is None
            else f"{shown(before)} before; nothing to measure after",
        )
    if before is None:
        return Move(name, key, shown(after), "nothing to measure before")
    delta = after - before
    size = f"{abs(delta) * 100:.1f} points" if percent else f"{abs(delta):.2f}"
    if round(abs(delta) * (1000 if percent else 100)) == 0:
        return Move(name, key, shown(after), f"unchanged from {shown(before)}")
    better = (delta > 0) == up_is_good
    way = "up" if delta > 0 else "down"
    return Move(
        name,
        key,
        shown(after),
        f"{way} {size} from {shown(before)}: {'better' if better else 'worse'}",
    )


@dataclass
class Comparison:
    before: BatchJob
    after: BatchJob
    matched: int = 0
    only_before: int = 0
    only_after: int = 0
    no_id: int = 0
    answers: Counter[tuple[str, str]] = field(default_factory=Counter)  # summary before, after
    claims: Counter[tuple[str, str]] = field(default_factory=Counter)  # verdict before, after
    changed: list[AnswerPair] = field(default_factory=list)  # SHOWN, largest regression first
    changed_total: int = 0  # answers whose verdict or a claim's verdict changed
    verdicts_changed: int = 0  # answers whose verdict changed: the moves listed, summed
    figures_before: Figures = field(default_factory=Figures)
    figures_after: Figures = field(default_factory=Figures)

    @property
    def claims_only(self) -> int:
        """Answers that kept their verdict while a claim's verdict changed."""
        return self.changed_total - self.verdicts_changed

    @property
    def headline(self) -> tuple[Move, Move]:
        """How the unsupported-claim rate and the mean support score moved."""
        b, a = self.figures_before, self.figures_after
        return (
            _move("Unsupported-claim rate", "rate", b.rate, a.rate, percent=True, up_is_good=False),
            _move(
                "Mean support score",
                "score",
                b.mean_score,
                a.mean_score,
                percent=False,
                up_is_good=True,
            ),
        )

    @property
    def answer_moves(self) -> list[tuple[str, str, int]]:
        return _moves(self.answers)

    @property
    def claim_moves(self) -> list[tuple[str, str, int]]:
        return _moves(self.claims)


def _moves(counter: Counter[tuple[str, str]]) -> list[tuple[str, str, int]]:
    """Changes only, largest first: (before, after, count)."""
    found = [(a, b, n) for (a, b), n in counter.items() if a != b]
    return sorted(found, key=lambda move: (-move[2], move[0], move[1]))


def _done(job: BatchJob) -> QuerySet[BatchLine]:
    return BatchLine.objects.filter(job=job, state=BatchLine.State.DONE)


def _ids(job: BatchJob) -> tuple[int, int]:
    """The job's distinct ids and its lines without one, counted by the database."""
    found = _done(job).aggregate(
        ids=Count("external_id", distinct=True, filter=~Q(external_id="")),
        no_id=Count("pk", filter=Q(external_id="")),
    )
    return found["ids"], found["no_id"]


def _matches(before: BatchJob, after: BatchJob) -> Iterator[tuple[int, int]]:
    """The primary keys of each matched answer's lines (the first line of a repeated id
    on each side), in the order of the job before: only keys, so the stream is light."""
    earlier = _done(before).filter(
        external_id=OuterRef("external_id"), number__lt=OuterRef("number")
    )
    first_after = (
        _done(after).filter(external_id=OuterRef("external_id")).order_by("number").values("pk")
    )
    rows = (
        _done(before)
        .exclude(external_id="")
        .filter(~Exists(earlier))
        .annotate(other=Subquery(first_after[:1]))
        .order_by("number")
        .values_list("pk", "other")
    )
    for pk, other in rows.iterator(CHUNK):
        if other is not None:
            yield pk, other


def _keyed(claims: list[dict[str, Any]]) -> dict[tuple[str, int], dict[str, Any]]:
    seen: Counter[str] = Counter()
    out = {}
    for claim in claims:
        text = claim["claimText"]
        out[(text, seen[text])] = claim
        seen[text] += 1
    return out


def claim_pairs(before: dict[str, Any] | None, after: dict[str, Any] | None) -> list[ClaimPair]:
    """Each claim of either side, in the order of the answer before (then the new ones)."""
    old, new = _keyed(claims_of(before)), _keyed(claims_of(after))
    pairs = []
    for key in [*old, *(k for k in new if k not in old)]:
        a, b = old.get(key, {}), new.get(key, {})
        pairs.append(
            ClaimPair(
                key[0], a.get("verdict", ""), a.get("score"), b.get("verdict", ""), b.get("score")
            )
        )
    return pairs


def pairs(before: BatchJob, after: BatchJob) -> Iterator[AnswerPair]:
    """Matched answers, in the order of the job before; the lines, results included, are
    read CHUNK pairs at a time, so two jobs of 100,000 lines never sit in memory."""
    matches = _matches(before, after)
    while chunk := list(islice(matches, CHUNK)):
        lines = BatchLine.objects.only(*_FIELDS).in_bulk([pk for pair in chunk for pk in pair])
        for old, new in chunk:
            if old not in lines or new not in lines:
                continue  # deleted since its key was read (its job deleted or expired)
            line, other = lines[old], lines[new]
            claims = tuple(claim_pairs(line.result, other.result))
            yield AnswerPair(line.external_id, line, other, claims)


def compare(before: BatchJob, after: BatchJob) -> Comparison:
    """Counts over every matched answer; the SHOWN changed answers that regressed most
    are kept in a heap (ties in the order of the job before), so memory stays bounded."""
    (ids_old, no_id_old), (ids_new, no_id_new) = _ids(before), _ids(after)
    out = Comparison(before, after, no_id=no_id_old + no_id_new)
    worst: list[tuple[tuple[int, float, int], int, AnswerPair]] = []
    for pair in pairs(before, after):
        out.matched += 1
        out.figures_before.add(pair.before)
        out.figures_after.add(pair.after)
        out.answers[(pair.before.summary, pair.after.summary)] += 1
        out.claims.update((c.before_verdict, c.after_verdict) for c in pair.claims)
        out.verdicts_changed += pair.verdict_changed
        if pair.changed:
            out.changed_total += 1
            entry = (pair.regression, -out.matched, pair)
            if len(worst) < SHOWN:
                heapq.heappush(worst, entry)
            elif entry[:2] > worst[0][:2]:
                heapq.heapreplace(worst, entry)
    out.changed = [pair for *_, pair in sorted(worst, key=lambda e: e[:2], reverse=True)]
    out.only_before, out.only_after = ids_old - out.matched, ids_new - out.matched
    return out


CSV_COLUMNS = (
    "id",
    "line_before",
    "line_after",
    "summary_before",
    "summary_after",
    "score_before",
    "score_after",
    "claim",
    "verdict_before",
    "verdict_after",
    "claim_score_before",
    "claim_score_after",
)


def _score(value: float | None) -> str:
    return "" if value is None else f"{value:.6f}"


def csv_lines(before: BatchJob, after: BatchJob) -> Iterator[str]:
    """One row per claim of every matched answer (an answer without claims: one row)."""
    yield csv_line(CSV_COLUMNS)
    for pair in pairs(before, after):
        head = (
            pair.id,
            pair.before.number,
            pair.after.number,
            pair.before.summary,
            pair.after.summary,
            _score(pair.before.support_score),
            _score(pair.after.support_score),
        )
        claims = pair.claims or (ClaimPair("", "", None, "", None),)
        for c in claims:
            yield csv_line(
                (
                    *head,
                    c.text,
                    c.before_verdict,
                    c.after_verdict,
                    _score(c.before_score),
                    _score(c.after_score),
                )
            )


def jsonl_lines(before: BatchJob, after: BatchJob) -> Iterator[str]:
    """One object per matched answer, its claims before and after."""
    for pair in pairs(before, after):
        data = {
            "id": pair.id,
            "changed": pair.changed,
            "before": {
                "line": pair.before.number,
                "summary": pair.before.summary,
                "supportScore": pair.before.support_score,
            },
            "after": {
                "line": pair.after.number,
                "summary": pair.after.summary,
                "supportScore": pair.after.support_score,
            },
            "claims": [
                {
                    "claimText": c.text,
                    "before": {"verdict": c.before_verdict or None, "score": c.before_score},
                    "after": {"verdict": c.after_verdict or None, "score": c.after_score},
                }
                for c in pair.claims
            ],
        }
        yield json.dumps(data, ensure_ascii=False) + "\n"
