"""Alert rules evaluated over fixed windows, and their webhooks.

A window is `window_minutes` long and aligned to the Unix epoch, so every worker that
evaluates a rule computes the same window and the delivery row (unique per rule and
window) makes it alert once. The current window and the one before are evaluated on
each pass: a window alerts as soon as it passes its level, and lines checked late in
the previous window still count.

A delivery is sent by `attempt`: it claims the row with a conditional update (two
workers never post it at once), posts the stored body, and marks it delivered on a 2xx
answer, or records when it is due again (MONITORING_WEBHOOK_BACKOFF, by the attempts it
has had, so a delivery sent again after a lost message keeps its place in the schedule).
Redirects are never followed, internal addresses are refused (a webhook URL is user
input: `webhooks.py`), and every post has a timeout. Receivers that see a retry after a
lost answer dedupe by the payload's `idempotencyKey` (also the `Idempotency-Key` header).
"""

from __future__ import annotations

import hashlib
import hmac
import http.client
import json
import logging
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Count, Q, Sum
from django.utils import timezone

from grounding_app.monitoring import trends
from grounding_app.monitoring.models import AlertDelivery, AlertRule
from grounding_app.monitoring.webhooks import BadWebhook, post

logger = logging.getLogger(__name__)

SIGNATURE_HEADER = "X-Grounding-Signature"
ERROR_CHARS = 500


def window(rule: AlertRule, now: datetime, back: int = 0) -> tuple[datetime, datetime]:
    """The rule's window holding `now`, or the `back`-th one before it."""
    length = rule.window_minutes * 60
    start = (int(now.timestamp()) // length - back) * length
    first = datetime.fromtimestamp(start, tz=UTC)
    return first, first + timedelta(seconds=length)


@dataclass(frozen=True)
class Measure:
    answers: int
    claims: int
    unsupported: int
    low: int  # answers below the rule's score

    @property
    def rate(self) -> float | None:
        return self.unsupported / self.claims if self.claims else None


def scope_of(rule: AlertRule) -> trends.Scope:
    return trends.Scope(rule.source, rule.key, rule.value if rule.key else "")


def measure(rule: AlertRule, start: datetime, end: datetime) -> Measure:
    found = (
        trends.lines(scope_of(rule))
        .filter(processed_at__gte=start, processed_at__lt=end)
        .aggregate(
            answers=Count("id"),
            claims=Sum("claim_count"),
            unsupported=Sum("unsupported_count"),
            low=Count("id", filter=Q(support_score__lt=rule.score_below)),
        )
    )
    return Measure(found["answers"], found["claims"] or 0, found["unsupported"] or 0, found["low"])


def fires(rule: AlertRule, found: Measure) -> bool:
    if rule.kind == AlertRule.Kind.LOW_SCORES:
        return found.low >= max(1, rule.count)
    rate = found.rate
    return found.answers >= rule.min_answers and rate is not None and rate > rule.level


def describe(rule: AlertRule, found: Measure | None) -> str:
    """One sentence for people (Slack's `text`, the delivery log)."""
    where = rule.source.service_name if rule.source else "all jobs"
    if rule.key:
        where += f", {rule.key} = {rule.value}"
    if found is None:
        return f"Test of the alert rule '{rule.name}' ({where})."
    if rule.kind == AlertRule.Kind.LOW_SCORES:
        return (
            f"'{rule.name}' ({where}): {found.low} answers scored below {rule.score_below:g} "
            f"within {rule.window_minutes} minutes (the rule alerts at {rule.count})."
        )
    return (
        f"'{rule.name}' ({where}): {found.unsupported} of {found.claims} claims unsupported "
        f"({(found.rate or 0):.1%}) in {found.answers} answers within {rule.window_minutes} "
        f"minutes, above {rule.level:.1%}."
    )


def body(
    rule: AlertRule,
    key: str,
    span: tuple[datetime, datetime] | None,
    found: Measure | None,
) -> bytes:
    """The payload as sent: Slack's `text` (and the key), or the generic object."""
    text = describe(rule, found)
    if rule.format == AlertRule.Format.SLACK:
        data: dict[str, object] = {"text": text, "idempotency_key": key}
    else:
        data = {
            "idempotencyKey": key,
            "test": found is None,
            "rule": {"id": rule.pk, "name": rule.name, "kind": rule.kind},
            "scope": {
                "source": rule.source.service_name if rule.source else None,
                "key": rule.key or None,
                "value": rule.value if rule.key else None,
            },
            "window": None
            if span is None
            else {"start": span[0].isoformat(), "end": span[1].isoformat()},
            "figures": None
            if found is None
            else {
                "answers": found.answers,
                "claims": found.claims,
                "unsupportedClaims": found.unsupported,
                "unsupportedRate": found.rate,
                "answersBelowScore": found.low,
            },
            "level": rule.level if rule.kind == AlertRule.Kind.RATE else rule.count,
            "text": text,
        }
    return json.dumps(data, ensure_ascii=False, sort_keys=True).encode()


def signature(secret: str, data: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode(), data, hashlib.sha256).hexdigest()


def evaluate(rules: list[AlertRule] | None = None, *, now: datetime | None = None) -> list[int]:
    """Create a delivery for each window that passes its rule's level and has none yet;
    returns the new deliveries' ids (the caller sends them)."""
    now = now or timezone.now()
    created = []
    for rule in rules if rules is not None else AlertRule.objects.filter(enabled=True):
        for back in (1, 0):
            span = window(rule, now, back)
            if AlertDelivery.objects.filter(rule=rule, window_start=span[0], test=False).exists():
                continue
            found = measure(rule, *span)
            if not fires(rule, found):
                continue
            delivery = AlertDelivery(rule=rule, window_start=span[0], window_end=span[1])
            delivery.body = body(rule, str(delivery.idempotency_key), span, found)
            try:
                with transaction.atomic():
                    delivery.save()
            except IntegrityError:  # another worker created it first
                continue
            created.append(delivery.pk)
    return created


def test_delivery(rule: AlertRule) -> AlertDelivery:
    delivery = AlertDelivery(rule=rule, test=True)
    delivery.body = body(rule, str(delivery.idempotency_key), None, None)
    delivery.save()
    return delivery


def _lapsed(now: datetime) -> Q:
    """Deliveries claimed for longer than an attempt can take: their sender died."""
    lapsed = now - timedelta(seconds=2 * settings.MONITORING_WEBHOOK_TIMEOUT + 5)
    return Q(state=AlertDelivery.State.SENDING, claimed_at__lt=lapsed)


def _claim(delivery_id: int, now: datetime) -> AlertDelivery | None:
    """The delivery, marked as being sent by this caller, or None when it is delivered,
    given up, or being sent by another (a claim older than its timeout has lapsed)."""
    claimable = Q(state=AlertDelivery.State.PENDING) | _lapsed(now)
    taken = AlertDelivery.objects.filter(claimable, pk=delivery_id).update(
        state=AlertDelivery.State.SENDING, claimed_at=now
    )
    if not taken:
        return None
    return AlertDelivery.objects.select_related("rule").get(pk=delivery_id)


def backoff(attempts: int) -> float | None:
    """Seconds to wait after the `attempts`-th failed attempt; None: give up."""
    schedule = settings.MONITORING_WEBHOOK_BACKOFF
    return schedule[attempts - 1] if 0 < attempts <= len(schedule) else None


def attempt(delivery_id: int) -> float | None:
    """Post the delivery once. Returns the seconds to wait before the next attempt after
    a failure, else None: delivered, given up (the schedule is spent), or nothing to do
    (delivered before, given up, or in another's hands)."""
    delivery = _claim(delivery_id, timezone.now())
    if delivery is None:
        return None
    rule = delivery.rule
    data = bytes(delivery.body)
    key = str(delivery.idempotency_key)
    headers = {"Content-Type": "application/json", "Idempotency-Key": key}
    if rule.format == AlertRule.Format.GENERIC:
        headers[SIGNATURE_HEADER] = signature(rule.secret, data)
    status, error = None, ""
    try:
        status = post(rule.url, data, headers, settings.MONITORING_WEBHOOK_TIMEOUT)
    except (OSError, http.client.HTTPException, BadWebhook) as exc:
        error = f"{type(exc).__name__}: {exc}"
    ok = status is not None and 200 <= status < 300
    if status is not None and not ok:
        error = f"HTTP {status}" + (" (redirects are not followed)" if 300 <= status < 400 else "")
    attempts = delivery.attempts + 1
    wait = None if ok else backoff(attempts)
    now = timezone.now()
    if ok:
        state = AlertDelivery.State.DELIVERED
    else:
        state = AlertDelivery.State.FAILED if wait is None else AlertDelivery.State.PENDING
        logger.info("alert delivery %s failed (attempt %s): %s", key, attempts, error)
    AlertDelivery.objects.filter(pk=delivery.pk).update(
        state=state,
        attempts=attempts,
        last_status=status,
        last_error=error[:ERROR_CHARS],
        delivered_at=now if ok else None,
        next_attempt_at=None if wait is None else now + timedelta(seconds=wait),
        claimed_at=None,
    )
    return wait


def stranded(grace: float) -> list[int]:
    """Waiting deliveries whose next attempt is over `grace` seconds late (the message
    that carried it went with a dead worker, or the broker was down when it was sent),
    and new ones never tried: the evaluator sends them again. Sending one twice is
    harmless: `attempt` claims it, and a delivered one is never posted again. One whose
    sender died mid-post (its claim lapsed) is sent again too, else it stays `sending`."""
    now = timezone.now()
    late = now - timedelta(seconds=grace)
    due = Q(next_attempt_at__lt=late) | Q(next_attempt_at__isnull=True, created_at__lt=late)
    waiting = AlertDelivery.objects.filter(Q(due, state=AlertDelivery.State.PENDING) | _lapsed(now))
    return list(waiting.values_list("pk", flat=True)[:1000])
