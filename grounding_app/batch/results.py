"""What the batch pages, the API and the command read of a job: its progress, its
results so far (score histogram, rates per metadata value, worst lines, judges and
verifiers, failed and warned lines) and whose it is."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any

from django.db.models import Count, F, Max, Q
from django.utils import timezone

from grounding_app.batch.models import BatchJob, BatchLine
from grounding_app.common.importing import NOT_CHECKABLE
from grounding_app.engine import CHECKED_BY, FEATURE_JUDGE, VERIFIER, WORD_MATCHING
from grounding_app.rendering.languages import JudgeInfo, language_totals, mark_text, summary


def owner_id(job: BatchJob) -> int | None:
    """Who the job belongs to: its uploader, or for an API job (a trace source's rolling
    job too) the owner of its key."""
    if job.created_by_id is not None:
        return int(job.created_by_id)
    key = job.api_key
    return key.created_by_id if key is not None else None


@dataclass(frozen=True)
class Progress:
    total: int
    done: int
    failed: int
    pending: int
    rate: float | None  # lines per second checked by workers
    eta_seconds: float | None

    @property
    def finished(self) -> int:
        return self.done + self.failed

    @property
    def percent(self) -> int:
        return int(100 * self.finished / self.total) if self.total else 100

    @property
    def eta_text(self) -> str:
        if self.eta_seconds is None:
            return "—"
        seconds = round(self.eta_seconds)
        if seconds >= 3600:
            return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"
        if seconds >= 60:
            return f"{seconds // 60} min {seconds % 60:02d} s"
        return f"{seconds} s"


def progress(job: BatchJob) -> Progress:
    counts = dict(
        BatchLine.objects.filter(job=job).values_list("state").annotate(n=Count("pk")).order_by()
    )
    checked = BatchLine.objects.filter(job=job).aggregate(
        n=Count("pk", filter=Q(processed_at__isnull=False)), last=Max("processed_at")
    )
    pending = counts.get(BatchLine.State.PENDING, 0)
    rate = eta = None
    if job.started_at is not None and checked["n"]:
        end = timezone.now() if job.active else (checked["last"] or timezone.now())
        elapsed = (end - job.started_at).total_seconds()
        if elapsed > 0:
            rate = checked["n"] / elapsed
            eta = pending / rate if job.active else None
    return Progress(
        total=job.total,
        done=counts.get(BatchLine.State.DONE, 0),
        failed=counts.get(BatchLine.State.FAILED, 0),
        pending=pending,
        rate=rate,
        eta_seconds=eta,
    )


HISTOGRAM_BINS = 10


def score_histogram(job: BatchJob) -> list[int]:
    """Checked lines per support-score bin of width 0.1 (1.0 falls in the last)."""
    bins = [0] * HISTOGRAM_BINS
    scores = BatchLine.objects.filter(job=job, support_score__isnull=False)
    for (score,) in scores.values_list("support_score").iterator(chunk_size=2000):
        if score is not None:
            bins[min(int(score * HISTOGRAM_BINS), HISTOGRAM_BINS - 1)] += 1
    return bins


@dataclass(frozen=True)
class GroupRate:
    value: str
    lines: int
    unsupported: int
    mean_score: float | None
    not_checkable: int = 0  # lines apart from `lines`: their sources came without text

    @property
    def rate(self) -> float:
        return self.unsupported / self.lines if self.lines else 0.0


def group_keys(job: BatchJob) -> list[str]:
    """The metadata fields that lines of this job carry, for the group-by choice."""
    keys: set[str] = set()
    for (labels,) in BatchLine.objects.filter(job=job).values_list("labels")[:5000]:
        keys.update(labels or ())  # the names only: lines differ in which they carry
    return sorted(keys)


def unsupported_by(job: BatchJob, key: str) -> list[GroupRate]:
    """Per value of metadata field `key`: checked lines, lines with an unsupported claim
    and the mean support score; worst rate first. A line not checkable (its sources came
    without text) is no answer without an unsupported claim: it is counted apart, and a
    value with only such lines comes last."""
    lines: Counter[str] = Counter()
    unsupported: Counter[str] = Counter()
    not_checkable: Counter[str] = Counter()
    scores: defaultdict[str, list[float]] = defaultdict(list)
    rows = BatchLine.objects.filter(job=job, state=BatchLine.State.DONE).values_list(
        "labels", "summary", "unsupported_count", "support_score"
    )
    for labels, verdict, count, score in rows.iterator(chunk_size=2000):
        value = (labels or {}).get(key, "(none)")
        if verdict == NOT_CHECKABLE:
            not_checkable[value] += 1
            continue
        lines[value] += 1
        unsupported[value] += count > 0
        if score is not None:
            scores[value].append(score)
    groups = [
        GroupRate(
            value,
            lines[value],
            unsupported[value],
            sum(scores[value]) / len(scores[value]) if scores[value] else None,
            not_checkable[value],
        )
        for value in lines.keys() | not_checkable.keys()
    ]
    return sorted(groups, key=lambda g: (not g.lines, -g.rate, -g.lines, g.value))


def worst_lines(job: BatchJob, limit: int = 25) -> list[BatchLine]:
    """Checked lines, lowest support score first (lines without a score last)."""
    return list(
        BatchLine.objects.filter(job=job, state=BatchLine.State.DONE)
        .order_by(F("support_score").asc(nulls_last=True), "-unsupported_count", "number")
        .defer("raw", "result")[:limit]
    )


JUDGE_LABELS = {
    VERIFIER: "Verifier",
    FEATURE_JUDGE: "Feature judge",
    WORD_MATCHING: "Word matching",
}


@dataclass(frozen=True)
class JudgeCount:
    """Claims of a job that one judge checked, per language (names, most claims first)."""

    checked_by: str
    claims: int
    languages: tuple[tuple[str, int], ...]

    @property
    def label(self) -> str:
        return JUDGE_LABELS.get(self.checked_by, self.checked_by)

    @property
    def word_matching(self) -> bool:
        return self.checked_by == WORD_MATCHING

    @property
    def text(self) -> str:
        """The line the page shows: "Word matching: 120 claims (Hebrew 118, Chinese 2)"."""
        detail = ", ".join(f"{name} {n:,}" for name, n in self.languages)
        plural = "" if self.claims == 1 else "s"
        return f"{self.label}: {self.claims:,} claim{plural}" + (f" ({detail})" if detail else "")


def judge_counts(job: BatchJob) -> tuple[list[JudgeCount], list[str]]:
    """Checked claims per judge (the engine's order) with their languages, and the codes
    of the languages word matching judged; lines checked before the engine said what
    judged a claim count as none."""
    totals: defaultdict[str, Counter[str]] = defaultdict(Counter)
    rows = BatchLine.objects.filter(job=job, state=BatchLine.State.DONE).values_list("judged_by")
    for (judged,) in rows.iterator(chunk_size=2000):
        for judge, languages in (judged or {}).items():
            for language, n in languages.items():
                totals[judge][language] += n
    order = {judge: i for i, judge in enumerate(CHECKED_BY)}
    counts = [
        JudgeCount(judge, sum(c.values()), tuple(language_totals(c)))
        for judge, c in sorted(totals.items(), key=lambda item: (order.get(item[0], 99), item[0]))
    ]
    matched = sorted(totals[WORD_MATCHING], key=lambda code: -totals[WORD_MATCHING][code])
    return counts, matched


def verifier_counts(job: BatchJob) -> list[dict[str, Any]]:
    """Checked lines per verifier ({"verifier", "n"}), most first: more than one when the
    verifier was switched while the job ran."""
    return list(
        BatchLine.objects.filter(job=job, state=BatchLine.State.DONE)
        .exclude(verifier="")
        .values("verifier")
        .annotate(n=Count("pk"))
        .order_by("-n", "verifier")
    )


@dataclass(frozen=True)
class LineMark:
    """A line's word-matching mark for the results page: short text and the sentence."""

    text: str  # "Hebrew: word matching · 3 of 5 claims"
    note: str  # "3 of 5 checked claims are in Hebrew: checked by word matching; ..."


def line_mark(line: BatchLine, judge: JudgeInfo) -> LineMark | None:
    """The mark of a line with word-matched claims, else None."""
    judged = line.judged_by or {}
    matched = judged.get(WORD_MATCHING) or {}
    if not matched:
        return None
    checked = sum(sum(languages.values()) for languages in judged.values())
    # one code per claim, the most frequent language first
    codes = [c for c, n in sorted(matched.items(), key=lambda item: -item[1]) for _ in range(n)]
    short = mark_text(codes[0]) if len(matched) == 1 else mark_text(None)
    plural = "" if checked == 1 else "s"
    return LineMark(
        f"{short} · {len(codes)} of {checked} claim{plural}", summary(codes, checked, judge)
    )


def excluded_answers(job: BatchJob) -> int:
    """Checked answers that cite a source the job's policy excludes."""
    return BatchLine.objects.filter(job=job, excluded_cited__gt=0).count()


def failed_lines(job: BatchJob, limit: int = 50) -> list[BatchLine]:
    return list(
        BatchLine.objects.filter(job=job, state=BatchLine.State.FAILED)
        .order_by("number")
        .only("number", "error")[:limit]
    )


def warned_lines(job: BatchJob, limit: int = 50) -> list[BatchLine]:
    """Checked lines that came with something wrong (a Gemini support's offsets out of
    range, say): their warning is kept in `error`, and the page must show it."""
    return list(
        BatchLine.objects.filter(job=job, state=BatchLine.State.DONE)
        .exclude(error="")
        .order_by("number")
        .only("number", "error")[:limit]
    )
