"""A real Celery worker delivers alerts to a receiver that is down for its first 30
seconds of wall time (refusing connections for 15 s, then answering 503 for 15 s):
each alert arrives exactly once, its HMAC checked by the receiver (`-m slow`).

The backoff schedule is shortened by MONITORING_WEBHOOK_BACKOFF (1, 2, 4, 8, 8, 8, 8,
8 s) so the retries span the outage in about 40 s; the outage itself is real time."""

from __future__ import annotations

import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from grounding_app.monitoring.models import AlertDelivery, AlertRule
from tests.batch.conftest import running_workers, wait_for
from tests.monitoring import data
from tests.monitoring.receiver import Receiver

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

DOWN_S = 30


def test_a_receiver_down_for_30_s_gets_each_alert_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MONITORING_WEBHOOK_BACKOFF", "1,2,4,8,8,8,8,8")
    monkeypatch.setenv("MONITORING_ALERT_SECONDS", "1")
    monkeypatch.setenv("MONITORING_WEBHOOK_TIMEOUT", "2")
    monkeypatch.setenv("MONITORING_WEBHOOK_ALLOW", "127.0.0.1")  # the local receiver
    bot = data.source()
    job = data.job("today", bot)
    now = timezone.now()
    for n in range(6):
        data.line(job, n + 1, now - timedelta(seconds=n), claims=2, unsupported=2, score=0.1)
    receiver = Receiver()
    receiver.reserve()
    common = {"source": bot, "url": receiver.url, "window_minutes": 60, "min_answers": 1}
    signed = AlertRule.objects.create(name="signed", level=0.5, **common)
    AlertRule.objects.create(name="slack", format="slack", kind="low_scores", count=3, **common)
    receiver.secret = signed.secret
    with running_workers("embedded", tmp_path) as workers:
        workers.start()
        went_down = time.monotonic()
        wait_for(lambda: AlertDelivery.objects.count() == 2, 30, "two deliveries made")
        wait_for(lambda: time.monotonic() - went_down > DOWN_S / 2, 30, "the refusals")
        assert receiver.received == [] and AlertDelivery.objects.filter(attempts__gt=0).count() == 2
        receiver.answer = 503
        receiver.start()
        wait_for(lambda: time.monotonic() - went_down > DOWN_S, 30, "the 503s")
        assert receiver.accepted() == []
        receiver.answer = 200
        delivered = AlertDelivery.objects.filter(state=AlertDelivery.State.DELIVERED)
        wait_for(lambda: delivered.count() == 2, 60, "both alerts delivered")
        time.sleep(3)  # the evaluator runs every second: nothing more may come
    receiver.stop()
    accepted = receiver.accepted()
    assert len(accepted) == 2, [r.payload for r in accepted]
    keys = {str(d.idempotency_key) for d in AlertDelivery.objects.all()}
    assert {r.headers["Idempotency-Key"] for r in accepted} == keys
    generic = next(r for r in accepted if "idempotencyKey" in r.payload)
    assert generic.signed is True and generic.payload["rule"]["name"] == "signed"
    assert any(r.status == 503 for r in receiver.received)
    assert all(d.attempts > 2 for d in AlertDelivery.objects.all())
