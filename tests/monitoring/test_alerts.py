"""Alert rules: windows, evaluation once per window, webhook delivery to a real local
receiver (HMAC checked there, 503 retried, redirects not followed), the rule pages and
who may manage them."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.test import Client, override_settings
from django.utils import timezone

from grounding_app.monitoring import alerts
from grounding_app.monitoring.models import AlertDelivery, AlertRule
from grounding_app.traces.models import TraceSource
from tests.monitoring import data
from tests.monitoring.receiver import Receiver

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 11, 30, 15, 40, tzinfo=UTC)


@pytest.fixture(autouse=True)
def loopback_allowed(settings: Any) -> None:
    """The test receivers listen on 127.0.0.1, an internal address refused by default."""
    settings.MONITORING_WEBHOOK_ALLOW = ["127.0.0.1"]


def _rule(source: TraceSource | None, url: str, **fields: Any) -> AlertRule:
    defaults: dict[str, Any] = {"name": "bot rate", "window_minutes": 60, "min_answers": 2}
    return AlertRule.objects.create(source=source, url=url, **{**defaults, **fields})


def _bad_hour(source: TraceSource) -> None:
    job = data.job("today", source)
    for n in range(4):  # 6 of 8 claims unsupported, scores 0.1-0.4, in 15:00-16:00
        data.line(
            job,
            n + 1,
            NOW - timedelta(minutes=n),
            claims=2,
            unsupported=2 if n else 0,
            score=0.1 * (n + 1),
        )


def test_windows_are_aligned_to_the_epoch() -> None:
    rule = AlertRule(window_minutes=60)
    assert alerts.window(rule, NOW) == (
        NOW.replace(minute=0),
        NOW.replace(minute=0) + timedelta(hours=1),
    )
    assert alerts.window(rule, NOW, 1)[0] == NOW.replace(minute=0) - timedelta(hours=1)


def test_a_window_above_its_level_alerts_once() -> None:
    bot = data.source()
    _bad_hour(bot)
    rule = _rule(bot, "http://127.0.0.1:9/hook", level=0.5)
    assert alerts.measure(rule, *alerts.window(rule, NOW)).rate == 0.75
    first = alerts.evaluate(now=NOW)
    assert len(first) == 1
    assert alerts.evaluate(now=NOW) == [] and alerts.evaluate(now=NOW + timedelta(minutes=5)) == []
    delivery = AlertDelivery.objects.get()
    assert delivery.window_start == NOW.replace(minute=0)
    payload = AlertDelivery.objects.get().body
    assert b'"unsupportedRate": 0.75' in bytes(payload)


def test_levels_counts_and_scope_decide() -> None:
    bot, other = data.source("bot"), data.source("other")
    _bad_hour(bot)
    _rule(bot, "http://127.0.0.1:9/", name="too high", level=0.8)
    _rule(bot, "http://127.0.0.1:9/", name="too few", level=0.5, min_answers=5)
    _rule(other, "http://127.0.0.1:9/", name="other source", level=0.1)
    _rule(
        bot, "http://127.0.0.1:9/", name="low scores", kind="low_scores", score_below=0.35, count=3
    )
    _rule(
        bot,
        "http://127.0.0.1:9/",
        name="low scores, 4",
        kind="low_scores",
        score_below=0.35,
        count=4,
    )
    alerts.evaluate(now=NOW)
    assert list(AlertDelivery.objects.values_list("rule__name", flat=True)) == ["low scores"]


def test_a_delivery_is_signed_retried_after_503_and_then_done(receiver: Receiver) -> None:
    bot = data.source()
    _bad_hour(bot)
    rule = _rule(bot, receiver.url, level=0.5)
    receiver.secret = rule.secret
    (delivery_id,) = alerts.evaluate(now=NOW)
    receiver.answer = 503
    assert alerts.attempt(delivery_id) == 10  # the first delay of the default schedule
    waiting = AlertDelivery.objects.get()
    assert waiting.state == "pending" and waiting.next_attempt_at is not None
    receiver.answer = 200
    assert alerts.attempt(delivery_id) is None
    assert alerts.attempt(delivery_id) is None  # delivered: never posted again
    delivery = AlertDelivery.objects.get()
    assert (delivery.state, delivery.attempts, delivery.last_status) == ("delivered", 2, 200)
    got = receiver.received
    assert len(got) == 2 and all(r.signed for r in got)
    assert got[1].payload["idempotencyKey"] == str(delivery.idempotency_key)
    assert got[1].headers["Idempotency-Key"] == str(delivery.idempotency_key)


def test_slack_payloads_carry_text_and_the_key(receiver: Receiver) -> None:
    bot = data.source()
    _bad_hour(bot)
    _rule(bot, receiver.url, level=0.5, format="slack")
    (delivery_id,) = alerts.evaluate(now=NOW)
    assert alerts.attempt(delivery_id) is None
    payload = receiver.received[0].payload
    assert set(payload) == {"text", "idempotency_key"} and "6 of 8 claims" in payload["text"]
    assert "X-Grounding-Signature" not in receiver.received[0].headers


def test_a_redirect_is_not_followed(receiver: Receiver) -> None:
    rule = _rule(None, receiver.url)
    receiver.answer = 302
    delivery = alerts.test_delivery(rule)
    assert alerts.attempt(delivery.pk) == 10
    assert [r.path for r in receiver.received] == ["/hook"]
    assert "redirects are not followed" in AlertDelivery.objects.get().last_error


def test_a_receiver_that_is_down_is_an_error_not_a_crash() -> None:
    down = Receiver()
    down.reserve()
    delivery = alerts.test_delivery(_rule(None, down.url))
    assert alerts.attempt(delivery.pk) == 10
    assert "Connection" in AlertDelivery.objects.get().last_error


@pytest.mark.parametrize(
    "url",
    [
        "ftp://example.com/x",
        "javascript:alert(1)",
        "file:///etc/passwd",
        "http://user:pw@example.com/",
    ],
)
def test_the_form_refuses_what_is_not_an_http_webhook(
    client: Client, make_user: Callable[..., Any], url: str
) -> None:
    client.force_login(make_user("admin"))
    form = {**data.ALERT_FORM, "url": url}
    assert client.post("/monitoring/alerts/new/", form).status_code == 400
    assert not AlertRule.objects.exists()


def test_admins_manage_rules_and_send_a_test(
    client: Client, make_user: Callable[..., Any], receiver: Receiver
) -> None:
    client.force_login(make_user("admin"))
    form = {**data.ALERT_FORM, "name": "bot", "window_minutes": 30, "url": receiver.url}
    created = client.post("/monitoring/alerts/new/", form)
    rule = AlertRule.objects.get()
    assert created.status_code == 302 and created["Location"] == f"/monitoring/alerts/{rule.pk}/"
    receiver.secret = rule.secret
    assert client.post(f"/monitoring/alerts/{rule.pk}/test/").status_code == 302
    (got,) = receiver.received
    assert got.signed and got.payload["test"] is True
    page = client.get(f"/monitoring/alerts/{rule.pk}/").content.decode()
    assert 'data-state="delivered"' in page and rule.secret in page


def test_reviewers_see_rules_but_not_their_secrets(
    client: Client, make_user: Callable[..., Any]
) -> None:
    rule = _rule(None, "https://hooks.example.com/services/T000/B000/XXXX")
    client.force_login(make_user("reviewer"))
    assert client.get("/monitoring/alerts/").status_code == 200
    page = client.get(f"/monitoring/alerts/{rule.pk}/").content.decode()
    assert "hooks.example.com" in page and "XXXX" not in page and rule.secret not in page
    assert "Send a test" not in page
    assert client.get("/monitoring/alerts/new/").status_code == 403
    assert client.post(f"/monitoring/alerts/{rule.pk}/test/").status_code == 403
    assert client.post(f"/monitoring/alerts/{rule.pk}/delete/").status_code == 403


@override_settings(MONITORING_WEBHOOK_BACKOFF=(1.0, 2.0))
def test_the_schedule_is_the_rows_and_a_spent_one_gives_up() -> None:
    down = Receiver()
    down.reserve()
    delivery = alerts.test_delivery(_rule(None, down.url))
    assert [alerts.attempt(delivery.pk) for _ in range(3)] == [1.0, 2.0, None]
    assert AlertDelivery.objects.get().state == "failed"
    assert alerts.attempt(delivery.pk) is None  # given up: never posted again


def test_stranded_deliveries_are_found_for_sending_again() -> None:
    rule = _rule(None, "http://127.0.0.1:9/")
    _fresh, lost, late, done = (alerts.test_delivery(rule) for _ in range(4))
    an_hour_ago = timezone.now() - timedelta(hours=1)
    AlertDelivery.objects.filter(pk=lost.pk).update(created_at=an_hour_ago)
    AlertDelivery.objects.filter(pk=late.pk).update(next_attempt_at=an_hour_ago, attempts=1)
    AlertDelivery.objects.filter(pk=done.pk).update(created_at=an_hour_ago, state="delivered")
    assert sorted(alerts.stranded(60)) == sorted([lost.pk, late.pk])


def test_a_delivery_whose_sender_died_mid_post_is_sent_again() -> None:
    """Issue 44 item 7: a worker killed while posting left its delivery `sending`, with
    0 attempts, for good; once the claim has lapsed it is found and sent again."""
    rule = _rule(None, "http://127.0.0.1:9/")
    dying, busy = alerts.test_delivery(rule), alerts.test_delivery(rule)
    an_hour_ago = timezone.now() - timedelta(hours=1)
    AlertDelivery.objects.filter(pk=dying.pk).update(state="sending", claimed_at=an_hour_ago)
    AlertDelivery.objects.filter(pk=busy.pk).update(state="sending", claimed_at=timezone.now())
    assert alerts.stranded(60) == [dying.pk]
    assert alerts.attempt(dying.pk) is not None  # refused at port 9: counted, retried later
    again = AlertDelivery.objects.get(pk=dying.pk)
    assert (again.state, again.attempts) == ("pending", 1)
