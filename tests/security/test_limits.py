"""Rate limits (API per key, sign-in per address) answer 429; oversized requests 413."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime

import pytest
import time_machine
from django.conf import settings as django_settings
from django.core.cache import caches
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from grounding_app.api.models import ApiKey
from grounding_app.limits import RateLimit

pytestmark = pytest.mark.django_db

URL = "/v1/projects/p/locations/global/groundingConfigs/default_grounding_config:check"
BODY = json.dumps(
    {"answerCandidate": "T is the capital of O.", "facts": [{"factText": "T is the capital of O"}]}
)
WINDOW_START = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)


def check(client: Client, key: str, body: str | bytes = BODY, **extra: str):
    return client.post(
        URL, body, content_type="application/json", headers={"x-goog-api-key": key}, **extra
    )


@pytest.fixture
def clock(time_machine: time_machine.TimeMachineFixture) -> time_machine.TimeMachineFixture:
    time_machine.move_to(WINDOW_START, tick=False)
    return time_machine


def test_the_api_limits_each_key_with_the_google_envelope(
    client: Client, settings, fake_engine, clock
) -> None:
    settings.API_RATE_LIMIT = 3
    settings.API_RATE_WINDOW = 60
    first, second = ApiKey.issue("one")[1], ApiKey.issue("two")[1]
    assert [check(client, first).status_code for _ in range(3)] == [200, 200, 200]
    refused = check(client, first)
    assert refused.status_code == 429
    assert refused.json() == {
        "error": {
            "code": 429,
            "message": "Quota exceeded: at most 3 requests per 60 seconds per API key.",
            "status": "RESOURCE_EXHAUSTED",
        }
    }
    assert refused["Retry-After"] == "60"
    assert check(client, second).status_code == 200  # per key
    clock.shift(60)
    assert check(client, first).status_code == 200  # a new window


def test_unknown_keys_are_refused_before_they_are_counted(client: Client, settings) -> None:
    settings.API_RATE_LIMIT = 1
    assert [check(client, "gwk_wrong").status_code for _ in range(3)] == [401, 401, 401]


def test_zero_turns_a_limit_off(client: Client, settings, fake_engine) -> None:
    settings.API_RATE_LIMIT = 0
    key = ApiKey.issue("unlimited")[1]
    assert {check(client, key).status_code for _ in range(5)} == {200}


def test_a_failing_cache_lets_requests_through(
    client: Client, settings, fake_engine, monkeypatch
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise ConnectionError("cache down")

    settings.API_RATE_LIMIT = 1
    monkeypatch.setattr(caches["limits"], "add", broken)
    key = ApiKey.issue("k")[1]
    assert [check(client, key).status_code for _ in range(3)] == [200, 200, 200]


def test_the_counters_are_shared_redis_or_the_database() -> None:
    backend = django_settings.CACHES["limits"]["BACKEND"]
    if django_settings.REDIS_URL:
        assert backend == "django.core.cache.backends.redis.RedisCache"
    else:  # never a process's memory: gunicorn's workers would each count alone
        assert backend == "grounding_app.counters.cache.DatabaseCounterCache"
    assert RateLimit("probe", 5, 60).hit("me") == 1  # reaches the store


def _sign_in(client: Client, password: str, address: str):
    return client.post(
        "/accounts/login/",
        {"username": "sam", "password": password},
        REMOTE_ADDR=address,
    )


def test_sign_in_failures_are_limited_per_address(
    client: Client, settings, make_user: Callable[..., object], clock
) -> None:
    settings.LOGIN_RATE_LIMIT = 2
    settings.LOGIN_RATE_WINDOW = 300
    make_user("reviewer", "sam")
    address = "203.0.113.7"
    assert _sign_in(client, "pw-for-tests-only", address).status_code == 302  # not counted
    client.logout()
    assert [_sign_in(client, "wrong", address).status_code for _ in range(2)] == [200, 200]
    refused = _sign_in(client, "pw-for-tests-only", address)
    assert refused.status_code == 429
    assert "Too many attempts" in refused.content.decode()
    assert refused["Retry-After"] == "300"
    assert "Content-Security-Policy" in refused
    assert _sign_in(client, "pw-for-tests-only", "203.0.113.8").status_code == 302
    client.logout()
    clock.shift(300)
    assert _sign_in(client, "pw-for-tests-only", address).status_code == 302


def test_the_client_address_header_is_used_when_configured(
    client: Client, settings, make_user: Callable[..., object]
) -> None:
    settings.LOGIN_RATE_LIMIT = 1
    settings.CLIENT_IP_HEADER = "HTTP_X_REAL_IP"
    make_user("reviewer", "sam")
    proxy = "10.0.0.1"
    for ip, status in (("198.51.100.1", 200), ("198.51.100.1", 429), ("198.51.100.2", 200)):
        response = client.post(
            "/accounts/login/",
            {"username": "sam", "password": "wrong"},
            REMOTE_ADDR=proxy,
            HTTP_X_REAL_IP=ip,
        )
        assert response.status_code == status


def test_oversized_requests_are_refused_before_they_are_read(
    client: Client, settings, make_user: Callable[..., object]
) -> None:
    settings.MAX_REQUEST_BYTES = 2_000
    key = ApiKey.issue("k")[1]
    api = check(client, key, body="x" * 2_001)
    assert api.status_code == 413
    assert api.json()["error"]["status"] == "INVALID_ARGUMENT"
    client.force_login(make_user("reviewer"))
    for url in ("/reviews/import/", "/reviews/new/", "/accounts/login/"):
        page = client.post(url, {"payload": "x" * 2_100})
        assert page.status_code == 413, url
        assert "Too large" in page.content.decode()
    upload = client.post(
        "/reviews/import/", {"file": SimpleUploadedFile("big.json", b"[" + b" " * 3_000 + b"]")}
    )
    assert upload.status_code == 413
