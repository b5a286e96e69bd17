"""Labels drawn from production: each day, the claims the verifier is least sure of go
into a labeling project (`run_daily`, which every batch worker's scheduler calls; an
admin's "Run now"; or `manage.py sample_claims`).

A claim is uncertain when its score lies within the rule's band around its job's
citation threshold, or when the answer's own judge (Gemini's confidence scores, where
the line recorded them) and the verifier disagree. The day's quota is shared out in
turn between the lines' sources (strata), least sure first within each, so one busy
source cannot take it all; a claim is sent once per rule (`SampledClaim` is unique),
and a second run on the same day only fills what is left of the quota. A paused rule
(`enabled` off) sends nothing; an edited one runs with its new band and quota from the
next run on, still never resending what it sent before.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import QuerySet
from django.utils import timezone

from grounding_app.annotations.items import add_items
from grounding_app.batch.lines import LineError, parse
from grounding_app.batch.models import BatchLine
from grounding_app.common.importing import CheckedItem, ItemSource, ModelClaim
from grounding_app.engine import Fact
from grounding_app.monitoring import scope_labels
from grounding_app.monitoring.models import SampledClaim, SamplingRule, SamplingRun
from grounding_app.traces.models import SourceJob


@dataclass(frozen=True)
class Candidate:
    line_id: int
    segment: int
    stratum: str
    distance: float  # from the threshold: the smaller, the less sure


def uncertain(segment: dict[str, Any], threshold: float, band: float) -> float | None:
    """How far an uncertain claim's score is from the threshold (0 when the judges
    disagree), or None when the verifier is sure of it."""
    score = segment.get("score")
    if not isinstance(score, int | float):
        return None
    confidence = [c for c in segment.get("confidence") or () if isinstance(c, int | float)]
    if confidence and (max(confidence) >= threshold) != (score >= threshold):
        return 0.0
    distance = abs(score - threshold)
    return distance if distance <= band else None


def pick(candidates: Iterable[Candidate], quota: int) -> list[Candidate]:
    """Up to `quota` candidates, one stratum after another in turn, least sure first."""
    strata: dict[str, list[Candidate]] = defaultdict(list)
    for candidate in candidates:
        strata[candidate.stratum].append(candidate)
    queues = [
        sorted(found, key=lambda c: (c.distance, c.line_id, c.segment))
        for _, found in sorted(strata.items())
    ]
    chosen: list[Candidate] = []
    depth = 0
    while len(chosen) < quota and any(depth < len(queue) for queue in queues):
        chosen.extend(queue[depth] for queue in queues if depth < len(queue))
        depth += 1
    return chosen[:quota]


def _segments(result: dict[str, Any] | None) -> list[dict[str, Any]]:
    candidates = (result or {}).get("candidates") or [{}]
    return list(candidates[0].get("segments") or [])


def lines_of(rule: SamplingRule, today: date) -> QuerySet[BatchLine]:
    """The rule's checked lines of the last SAMPLING_LOOKBACK_DAYS days up to `today`."""
    end = datetime.combine(today + timedelta(days=1), time(), tzinfo=UTC)
    start = end - timedelta(days=settings.SAMPLING_LOOKBACK_DAYS)
    lines = BatchLine.objects.filter(
        state=BatchLine.State.DONE, processed_at__gte=start, processed_at__lt=end
    )
    if rule.job_id is not None:
        return lines.filter(job_id=rule.job_id)
    return lines.filter(
        job_id__in=SourceJob.objects.filter(source_id=rule.source_id).values("job_id")
    )


def candidates(rule: SamplingRule, today: date) -> list[Candidate]:
    """Uncertain claims of the rule's lines not sent yet."""
    sent = set(SampledClaim.objects.filter(rule=rule).values_list("line_id", "segment"))
    found = []
    rows = lines_of(rule, today).values_list("pk", "source", "result", "job__citation_threshold")
    for line_id, stratum, result, threshold in rows.iterator(chunk_size=500):
        for index, segment in enumerate(_segments(result)):
            distance = uncertain(segment, threshold, rule.band)
            if distance is not None and (line_id, index) not in sent:
                found.append(Candidate(line_id, index, stratum, distance))
    return found


def _facts(line: BatchLine) -> tuple[Fact, ...]:
    try:
        return parse(line.raw, line.number).item.facts if line.raw else ()
    except LineError:
        return ()


def _offsets(result: dict[str, Any]) -> list[int]:
    """Each part's first byte in the answer the parts make joined by newlines."""
    parts = ((result.get("candidates") or [{}])[0]).get("parts") or []
    starts, at = [], 0
    for part in parts:
        starts.append(at)
        at += len(str(part).encode()) + 1
    return starts or [0]


def _item(rule: SamplingRule, line: BatchLine, chosen: Sequence[Candidate]) -> CheckedItem:
    result = line.result or {}
    segments, offsets = _segments(result), _offsets(result)
    claims = []
    for c in chosen:
        s = segments[c.segment]
        shift = offsets[min(int(s.get("part", 0)), len(offsets) - 1)]
        claims.append(
            ModelClaim(
                index=c.segment,
                start=shift + int(s["start"]),
                end=shift + int(s["end"]),
                text=str(s.get("text", "")),
                check_required=True,
                verdict=str(s.get("verdict") or "unsupported"),
                score=s.get("score"),
                cited_facts=tuple(s.get("source_indices") or ()),
                language=s.get("language"),
                checked_by=s.get("checked_by"),
                llm_judge=s.get("llm_judge"),
            )
        )
    meta = {"sampled_by": rule.pk, "batch_line": line.pk, "verifier": line.verifier}
    source = ItemSource(line.answer, _facts(line), line.external_id, line.source, meta)
    return CheckedItem(source, tuple(claims))


def sample(rule: SamplingRule, today: date) -> list[SampledClaim]:
    """Send what is left of today's quota of uncertain claims to the rule's project.

    The rule is read again, locked, in the run's transaction: one paused or edited after
    `rule` was loaded (during a long `sample_all`) runs as it stands now, a paused one
    sending nothing, and two runs of one rule cannot both fill its quota."""
    with transaction.atomic():
        current = SamplingRule.objects.select_for_update().filter(pk=rule.pk, enabled=True)
        found = current.first()
        return [] if found is None else _send(found, today)


def _send(rule: SamplingRule, today: date) -> list[SampledClaim]:
    """The run itself, in `sample`'s transaction: the items and their SampledClaim rows
    are stored together, so a claim is either recorded as sent or not sent."""
    left = rule.daily_quota - SampledClaim.objects.filter(rule=rule, day=today).count()
    chosen = pick(candidates(rule, today), left) if left > 0 else []
    by_line: dict[int, list[Candidate]] = defaultdict(list)
    for candidate in chosen:
        by_line[candidate.line_id].append(candidate)
    if not by_line:
        return []
    lines = BatchLine.objects.in_bulk(by_line)
    items = add_items(rule.project, [_item(rule, lines[i], by_line[i]) for i in by_line])
    return SampledClaim.objects.bulk_create(
        SampledClaim(
            rule=rule,
            line_id=c.line_id,
            segment=c.segment,
            day=today,
            stratum=c.stratum,
            score=_segments(lines[c.line_id].result)[c.segment].get("score"),
            item=item,
        )
        for item, line_id in zip(items, by_line, strict=True)
        for c in by_line[line_id]
    )


def sample_all(today: date) -> dict[int, int]:
    """Run every active rule for `today`: rule id -> claims sent (a paused one is
    skipped here, and again by `sample` if it was paused since)."""
    return {rule.pk: len(sample(rule, today)) for rule in SamplingRule.objects.filter(enabled=True)}


def run_daily(today: date) -> dict[int, int] | None:
    """The day's scheduled run: every active rule once, or None when the day's run is
    already claimed (by this or another worker). The claim is a row unique per day; a
    run that fails gives it back, so the next pass tries again (a rule's second run on a
    day only fills what is left of its quota)."""
    try:
        with transaction.atomic():
            run = SamplingRun.objects.create(day=today)
    except IntegrityError:
        return None
    try:
        sent = sample_all(today)
        # Labels given since yesterday's run reach their scopes' calibrations.
        scope_labels.propose_all()
    except Exception:
        run.delete()
        raise
    run.finished_at, run.sent = timezone.now(), sum(sent.values())
    run.save(update_fields=["finished_at", "sent"])
    return sent
