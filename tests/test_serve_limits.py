"""The rate limits hold against `scripts/serve` itself, with its default gunicorn workers.

Each worker is its own process, so a counter kept in a worker's memory lets every worker
allow the whole limit. Requests go out several at a time, so both workers answer some;
exactly the limit may pass, whichever worker counts. The server runs on a free port with
its own database, static root and broker file, never the developer's `var/`.
"""

from __future__ import annotations

import http.client
import urllib.parse
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import pytest

from tests.serving import manage, production_environment, served_on

LIMIT = 10
ATTEMPTS = 14
SEED = """
from django.contrib.auth.models import User
from grounding_app.api.models import ApiKey
User.objects.create_superuser("boss", password="serve-limits-test-password")
print(ApiKey.issue("serve-limits")[1])
"""


@dataclass
class Served:
    port: int
    api_key: str
    csrf: str


def _request(
    port: int, method: str, path: str, body: str = "", headers: dict[str, str] | None = None
) -> tuple[int, http.client.HTTPResponse, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request(method, path, body=body or None, headers=headers or {})
        response = conn.getresponse()
        return response.status, response, response.read()
    finally:
        conn.close()


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    scratch = tmp_path_factory.mktemp("serve-limits")
    env = production_environment(scratch)
    env.update(
        SECURE_SSL_REDIRECT="0",  # plain http on loopback; the TLS path has its own test
        CLIENT_IP_HEADER="HTTP_X_REAL_IP",  # one address per sign-in form below
        LOGIN_RATE_LIMIT=str(LIMIT),
        LOGIN_RATE_WINDOW="3600",  # no window boundary falls inside the test
        API_RATE_LIMIT=str(LIMIT),
        API_RATE_WINDOW="3600",
    )
    env.pop("WEB_CONCURRENCY", None)  # the default number of workers
    manage(env, "migrate", "--noinput")
    key = manage(env, "shell", "-c", SEED).split()[-1]
    with served_on(env, scratch, within=120) as (port, log):
        _, response, _ = _request(port, "GET", "/accounts/login/")
        cookie = response.getheader("Set-Cookie") or ""
        csrf = cookie.split("csrftoken=", 1)[1].split(";", 1)[0]
        yield Served(port, key, csrf)
    assert "Booting worker" in log.read_text()


def _sign_in(served: Served, path: str, address: str) -> int:
    body = urllib.parse.urlencode(
        {"username": "boss", "password": "wrong", "csrfmiddlewaretoken": served.csrf}
    )
    headers = {
        "Content-Type": "application/x-www-form-urlencoded",
        "Cookie": f"csrftoken={served.csrf}",
        "X-Real-IP": address,
    }
    return _request(served.port, "POST", path, body, headers)[0]


def _at_once(call: object, count: int) -> Counter[int]:
    with ThreadPoolExecutor(max_workers=4) as pool:
        return Counter(pool.map(lambda _: call(), range(count)))  # type: ignore[operator]


@pytest.mark.parametrize(
    ("path", "address"), [("/admin/login/", "192.0.2.10"), ("/accounts/login/", "192.0.2.11")]
)
def test_the_sign_in_limit_holds_across_workers(served: Served, path: str, address: str) -> None:
    statuses = _at_once(lambda: _sign_in(served, path, address), ATTEMPTS)
    assert statuses == {200: LIMIT, 429: ATTEMPTS - LIMIT}
    other = "/accounts/login/" if path == "/admin/login/" else "/admin/login/"
    assert _sign_in(served, other, address) == 429  # one count per address, either form


def test_the_api_limit_holds_across_workers(served: Served) -> None:
    def call() -> int:
        headers = {"x-goog-api-key": served.api_key}
        return _request(
            served.port,
            "GET",
            "/v1/batchJobs/00000000-0000-4000-8000-000000000000",
            headers=headers,
        )[0]

    assert _at_once(call, ATTEMPTS) == {404: LIMIT, 429: ATTEMPTS - LIMIT}
