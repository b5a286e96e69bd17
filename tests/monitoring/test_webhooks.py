"""Webhooks never reach an internal address (server-side request forgery) unless the
admin's MONITORING_WEBHOOK_ALLOW names it: the rule form refuses one written as such,
and a delivery resolves the host, checks every address and connects to the checked one
(a real local receiver stands for the internal service)."""

from __future__ import annotations

import socket
import time
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from grounding_app.monitoring import alerts
from grounding_app.monitoring.models import AlertDelivery, AlertRule
from grounding_app.monitoring.webhooks import BadWebhook, check_url, vetted_addresses
from tests.monitoring import data
from tests.monitoring.receiver import Receiver

pytestmark = pytest.mark.django_db


def _send(url: str) -> AlertDelivery:
    rule = AlertRule.objects.create(name="r", url=url, window_minutes=60, min_answers=1)
    delivery = alerts.test_delivery(rule)
    alerts.attempt(delivery.pk)
    return AlertDelivery.objects.get(pk=delivery.pk)


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8000/hook",
        "http://10.1.2.3/hook",
        "http://192.168.0.10/hook",
        "http://169.254.169.254/latest/meta-data/",  # a cloud's metadata service
        "http://0.0.0.0/hook",
        "http://[::1]/hook",
        "http://[::ffff:127.0.0.1]/hook",
        "http://[fd00::1]/hook",
        "http://100.64.0.1/hook",
        "http://[64:ff9b::7f00:1]/hook",  # NAT64 of 127.0.0.1
        "http://[2002:a00:1::1]/hook",  # 6to4 of 10.0.0.1
    ],
)
def test_the_form_refuses_an_internal_address(
    client: Client, make_user: Callable[..., Any], url: str
) -> None:
    client.force_login(make_user("admin"))
    response = client.post("/monitoring/alerts/new/", {**data.ALERT_FORM, "url": url})
    assert response.status_code == 400
    page = response.content.decode()
    assert "is an internal address" in page
    # A metadata address may not be allowed at all (common/addresses.py).
    assert ("never reached" if "169.254" in url else "an admin may allow it") in page
    assert not AlertRule.objects.exists()


def test_a_delivery_to_an_internal_host_is_refused_and_never_sent(
    receiver: Receiver, settings: Any
) -> None:
    settings.MONITORING_WEBHOOK_ALLOW = []
    port = receiver.port
    for url in (receiver.url, f"http://localhost:{port}/hook"):
        delivery = _send(url)
        assert "is an internal address" in delivery.last_error, url
        assert delivery.state == AlertDelivery.State.PENDING  # retried on its schedule
    assert receiver.received == []


@pytest.mark.parametrize("allow", ["127.0.0.1", "127.0.0.0/8", "localhost", "LOCALHOST"])
def test_the_admin_may_allow_hosts_addresses_and_networks(
    receiver: Receiver, settings: Any, allow: str
) -> None:
    settings.MONITORING_WEBHOOK_ALLOW = [allow]
    port = receiver.port
    url = f"http://localhost:{port}/hook" if allow.lower() == "localhost" else receiver.url
    assert _send(url).state == AlertDelivery.State.DELIVERED
    assert len(receiver.received) == 1


def _resolving(monkeypatch: pytest.MonkeyPatch, answers: dict[str, list[str]]) -> None:
    real = socket.getaddrinfo

    def fake(host: str, port: int, *args: Any, **kwargs: Any) -> Any:
        if host not in answers:
            return real(host, port, *args, **kwargs)
        family = {True: socket.AF_INET6, False: socket.AF_INET}
        return [(family[":" in a], socket.SOCK_STREAM, 6, "", (a, port)) for a in answers[host]]

    monkeypatch.setattr(socket, "getaddrinfo", fake)


def test_a_name_with_any_internal_address_is_refused(
    monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    settings.MONITORING_WEBHOOK_ALLOW = []
    _resolving(monkeypatch, {"hooks.example": ["93.184.216.34", "10.0.0.5"]})
    with pytest.raises(BadWebhook, match=r"hooks\.example \(10\.0\.0\.5\) is an internal"):
        vetted_addresses("hooks.example", 443)
    _resolving(monkeypatch, {"hooks.example": ["93.184.216.34"]})
    assert vetted_addresses("hooks.example", 443) == ["93.184.216.34"]
    assert check_url("https://hooks.example/x") == "https://hooks.example/x"  # names pass


def test_the_connection_goes_to_the_checked_address_with_the_named_host(
    receiver: Receiver, monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    """Resolved once and connected to as resolved: a name that points elsewhere a moment
    later (DNS rebinding) is not looked up again; the receiver still sees the name."""
    settings.MONITORING_WEBHOOK_ALLOW = ["127.0.0.0/8"]
    port = receiver.port
    looked_up: list[str] = []
    real = socket.getaddrinfo

    def once(host: str, p: int, *args: Any, **kwargs: Any) -> Any:
        looked_up.append(host)
        if host == "hooks.example":
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", p))]
        return real(host, p, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", once)
    assert _send(f"http://hooks.example:{port}/hook").state == AlertDelivery.State.DELIVERED
    assert looked_up.count("hooks.example") == 1
    assert receiver.received[0].headers["Host"] == f"hooks.example:{port}"


def test_each_checked_address_is_tried_in_turn(
    receiver: Receiver, monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    """A name may resolve to an IPv6 address first that nothing listens on."""
    settings.MONITORING_WEBHOOK_ALLOW = ["hooks.example"]
    _resolving(monkeypatch, {"hooks.example": ["::1", "127.0.0.1"]})
    assert vetted_addresses("hooks.example", receiver.port) == ["::1", "127.0.0.1"]
    assert _send(f"http://hooks.example:{receiver.port}/hook").state == (
        AlertDelivery.State.DELIVERED
    )


def test_one_deadline_bounds_an_attempt_against_a_receiver_that_trickles(
    settings: Any, receiver: Receiver
) -> None:
    """Issue 44 item 7: a byte of headers every 0.2 s kept each read under the timeout,
    so "Send a test" took the worker down (500 after 61 s) with the delivery left
    `sending`, 0 attempts. Now the attempt ends at the deadline and is counted."""
    settings.MONITORING_WEBHOOK_ALLOW = ["127.0.0.1"]
    settings.MONITORING_WEBHOOK_TIMEOUT = 1
    receiver.trickle = 0.2
    started = time.monotonic()
    delivery = _send(receiver.url)
    assert time.monotonic() - started < 3
    assert (delivery.state, delivery.attempts) == ("pending", 1)
    assert delivery.last_error.startswith("TimeoutError") and delivery.next_attempt_at


def test_a_resolver_that_hangs_is_cut_off_by_the_attempts_deadline(
    settings: Any, receiver: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The receiver's name is looked up within MONITORING_WEBHOOK_TIMEOUT: a lookup that
    hung held the worker for as long as the system resolver tried. The attempt is
    counted and retried, as for a receiver that does not answer."""
    settings.MONITORING_WEBHOOK_ALLOW = ["hooks.slow"]
    settings.MONITORING_WEBHOOK_TIMEOUT = 1
    real = socket.getaddrinfo

    def slow(host: str, *args: Any, **kwargs: Any) -> Any:
        if host == "hooks.slow":
            time.sleep(4)
            host = "127.0.0.1"
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", slow)
    started = time.monotonic()
    delivery = _send(f"http://hooks.slow:{receiver.port}/hook")
    assert time.monotonic() - started < 2
    assert (delivery.state, delivery.attempts) == ("pending", 1)
    assert delivery.last_error.startswith("TimeoutError") and delivery.next_attempt_at
    assert receiver.received == []
