"""Issue 44's attacks against `scripts/serve` itself, with its default gunicorn workers, on
SQLite and on PostgreSQL: a judge set to every claim whose endpoint sends JSON nested
200,000 deep, an OTLP export of 20,000 resources each its own service, and monitoring
queries holding a NUL or a day past the calendar's end, and "Check with the engine" on an
imported answer of 216 KB (6,000 sentences), and "Send a test" to a webhook receiver
that trickles its headers a byte every 3 s. Every answer is a 2xx, a 3xx or a 4xx
well inside the worker timeout, and the server's log has no WORKER TIMEOUT.
`-m slow` runs it (a server start and a PostgreSQL database each)."""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from urllib.parse import urlencode

import pytest

from tests.llm_judge.chat_server import Step, chat_server
from tests.reviews.test_round4 import _gemini
from tests.serving import manage, production_environment, served_on
from tests.traces.conftest import PROTOBUF
from tests.traces.test_export_bounds import services_export
from tests.traces.test_serve_exports import PG_SERVER, _postgres

pytestmark = pytest.mark.slow

SEED = (
    "from grounding_app.api.models import ApiKey\n"
    "from grounding_app.monitoring.models import AlertRule\n"
    "from django.contrib.auth.models import Group, User\n"
    "from django.contrib.sessions.backends.db import SessionStore\n"
    "user = User.objects.create_user('sweep-admin', password='x' * 20)\n"
    "user.groups.add(Group.objects.get_or_create(name='admin')[0])\n"
    "s = SessionStore()\n"
    "s['_auth_user_id'] = str(user.pk)\n"
    "s['_auth_user_backend'] = 'django.contrib.auth.backends.ModelBackend'\n"
    "s['_auth_user_hash'] = user.get_session_auth_hash()\n"
    "s.create()\n"
    "rule = AlertRule.objects.create(name='trickle', url='{url}')\n"
    "from django.conf import settings\n"
    "print(ApiKey.issue('sweep')[1], s.session_key, rule.pk, settings.SESSION_COOKIE_NAME)"
)
ANSWER = "Titanic was directed by James Cameron. It was released in 1997."
FACTS = [{"factText": "Titanic is a 1997 film directed by James Cameron."}]


@dataclass
class Served:
    port: int
    api_key: str
    session: str
    cookie: str
    rule: int

    def request(
        self, method: str, path: str, body: bytes = b"", headers: dict[str, str] | None = None
    ) -> tuple[int, bytes, float]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        started = time.monotonic()
        try:
            conn.request(method, path, body=body or None, headers=headers or {})
            response = conn.getresponse()
            return response.status, response.read(), time.monotonic() - started
        finally:
            conn.close()

    def page(self, path: str) -> tuple[int, float]:
        status, _, seconds = self.request("GET", path, headers={"Cookie": self.cookie})
        return status, seconds

    def form(self, path: str, fields: dict[str, str]) -> tuple[int, str, float]:
        """A signed-in form POST with its CSRF token (cookie and header, as htmx sends)."""
        token = "t" * 64
        headers = {
            "Cookie": f"{self.cookie}; csrftoken={token}",
            "X-CSRFToken": token,
            "Content-Type": "application/x-www-form-urlencoded",
        }
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        started = time.monotonic()
        try:
            conn.request("POST", path, body=urlencode(fields).encode(), headers=headers)
            response = conn.getresponse()
            response.read()
            location = response.getheader("Location") or ""
            return response.status, location, time.monotonic() - started
        finally:
            conn.close()


@contextmanager
def trickling() -> Iterator[str]:
    """A webhook receiver that reads the request, then sends its headers a byte every 3 s."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.5)
    stop = threading.Event()

    def hold(conn: socket.socket) -> None:
        with conn:
            conn.settimeout(5)
            try:
                conn.recv(65536)
                for byte in b"HTTP/1.1 200 OK\r\n":
                    if stop.wait(3):
                        return
                    conn.sendall(bytes([byte]))
            except OSError:
                return

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:  # closed at the end
                return
            threading.Thread(target=hold, args=(conn,), daemon=True).start()

    threading.Thread(target=serve, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/hook"
    finally:
        stop.set()
        listener.close()


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def served(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    scratch = tmp_path_factory.mktemp("serve-round5")
    deep = Step(raw=b"[" * 200_000 + b"]" * 200_000)
    with chat_server(deep) as judge, trickling() as receiver:
        env = production_environment(scratch)
        env.update(
            SECURE_SSL_REDIRECT="0",
            API_RATE_LIMIT="1000",
            LLM_JUDGE_URL=judge.url,
            LLM_JUDGE_MODEL="hostile",
            LLM_JUDGE_BAND="all",
            MONITORING_WEBHOOK_ALLOW="127.0.0.1",
        )
        env.pop("WEB_CONCURRENCY", None)  # the default number of workers
        database = f"serve_round5_{uuid.uuid4().hex[:12]}"
        if request.param == "postgresql":
            if not _postgres(database, create=True):
                pytest.skip(f"no PostgreSQL server at {PG_SERVER}")
            env["DATABASE_URL"] = f"{PG_SERVER}/{database}"
        manage(env, "migrate", "--noinput")
        seeded = manage(env, "shell", "-c", SEED.replace("{url}", receiver))
        key, session, rule, cookie = seeded.split()[-4:]
        try:
            with served_on(env, scratch) as (port, log):
                yield Served(port, key, session, f"{cookie}={session}", int(rule))
        finally:
            if request.param == "postgresql":
                _postgres(database, create=False)
    assert "WORKER TIMEOUT" not in log.read_text()


def test_a_judge_answering_json_nested_200000_deep_falls_back(served: Served) -> None:
    body = json.dumps({"answerCandidate": ANSWER, "facts": FACTS}).encode()
    path = "/v1/projects/p/locations/global/groundingConfigs/default_grounding_config:check"
    headers = {"Content-Type": "application/json", "x-goog-api-key": served.api_key}
    status, raw, seconds = served.request("POST", path, body, headers)
    assert status == 200, raw[:300]
    notes = {c.get("llmJudge") for c in json.loads(raw)["claims"] if c["groundingCheckRequired"]}
    assert notes <= {"fell back: bad response", "fell back: unavailable"} and notes
    assert seconds < 45


def test_an_export_of_20000_services_is_bounded(served: Served) -> None:
    headers = {"Content-Type": PROTOBUF, "x-goog-api-key": served.api_key}
    status, raw, seconds = served.request(
        "POST", "/otlp/v1/traces", services_export(20_000), headers
    )
    print(f"20,000 services: {status} in {seconds:.1f} s")
    assert status == 200, raw[:300]
    assert seconds < 30


@pytest.mark.parametrize(
    "path",
    [
        "/monitoring/?key=%00&value=x",
        "/monitoring/?key=team&value=%00",
        "/monitoring/day/?day=9999-12-31",
        "/monitoring/day/?day=not-a-day",
        "/monitoring/compare/?before=%00&after=1",
    ],
)
def test_hostile_monitoring_queries_are_4xx_or_answered(served: Served, path: str) -> None:
    status, seconds = served.page(path)
    assert status < 500 and status != 302, (path, status)  # 302: the session did not sign in
    assert seconds < 30


def test_check_with_the_engine_on_a_216_kb_answer_is_refused_in_time(served: Served) -> None:
    payload = _gemini(sentences=6_000)
    assert len(payload.encode()) > 200_000
    status, location, _ = served.form("/reviews/import/", {"payload": payload})
    assert status == 302 and location.startswith("/reviews/"), (status, location)
    status, back, seconds = served.form(f"{location}engine-check/", {})
    print(f"check with the engine, 216 KB: {status} in {seconds:.1f} s")
    assert status == 302 and back == location and seconds < 30


def test_send_a_test_to_a_trickling_receiver_fails_in_time(served: Served) -> None:
    path = f"/monitoring/alerts/{served.rule}/test/"
    status, back, seconds = served.form(path, {})
    print(f"send a test to a trickling receiver: {status} in {seconds:.1f} s")
    assert status == 302 and back.endswith(f"/alerts/{served.rule}/") and seconds < 15
