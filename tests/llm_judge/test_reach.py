"""Where the LLM judge may send its requests and its key (issue 44, items 3 and 4): no
cloud metadata address ever, an internal one only when LLM_JUDGE_ALLOW names it or the
URL names the loopback, the key forgotten when the endpoint's origin changes, and a try
that tells no closed, open and filtered ports apart. Real local servers throughout; only
a name's resolution is scripted where a private name is needed."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from django.test import Client, override_settings

from grounding_app.engine import Band, Outcome, Ruling
from grounding_app.llm_judge import config
from grounding_app.llm_judge.client import Endpoint, refused
from grounding_app.llm_judge.judge import LLMJudge
from grounding_app.llm_judge.models import JudgeConfig
from tests.llm_judge.chat_server import Step, chat_server
from tests.llm_judge.test_judge import CLAIM, MemoryLedger

METADATA = [
    "http://169.254.169.254/v1",
    "http://169.254.170.2/v1",
    "http://[fd00:ec2::254]/v1",
    "http://100.100.100.200/v1",
    "http://[::ffff:169.254.169.254]/v1",
    "http://[64:ff9b::a9fe:a9fe]/v1",
]


def _judge(url: str, allow: tuple[str, ...] = ()) -> LLMJudge:
    endpoint = Endpoint(url, "m", "secret", 2.0, allow)
    return LLMJudge(endpoint, Band(everything=True), MemoryLedger())


@pytest.mark.parametrize("url", METADATA)
def test_a_metadata_address_is_refused_whatever_the_allow_list(url: str) -> None:
    allow = ("169.254.0.0/16", "fd00::/8", "100.64.0.0/10", "::/0", "0.0.0.0/0")
    assert _judge(url, allow).judge([CLAIM]) == [Outcome(None, "internal address")]
    assert "metadata" in (refused(url, allow) or "")


@pytest.fixture
def private_name(monkeypatch: pytest.MonkeyPatch) -> str:
    """judge.internal resolves to the loopback, as a compose service's name resolves to
    a private address (only the resolution is scripted; the connection is real)."""
    real = socket.getaddrinfo

    def resolve(host: str, *args: Any, **kwargs: Any) -> Any:
        return real("127.0.0.1" if host == "judge.internal" else host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", resolve)
    return "judge.internal"


def test_an_internal_address_needs_the_allow_list(private_name: str) -> None:
    with chat_server() as server:
        url = server.url.replace("127.0.0.1", private_name)
        assert _judge(url).judge([CLAIM]) == [Outcome(None, "internal address")]
        assert server.requests == []
        for allow in ((private_name,), ("127.0.0.0/8",)):
            assert _judge(url, allow).judge([CLAIM]) == [Outcome(Ruling(True, (), 0))]
    assert len(server.requests) == 2


def test_the_loopback_named_in_the_url_is_reached_without_an_entry() -> None:
    with chat_server() as server:
        for host in ("127.0.0.1", "localhost"):
            judge = _judge(server.url.replace("127.0.0.1", host))
            assert judge.judge([CLAIM]) == [Outcome(Ruling(True, (), 0))]
    assert refused("http://10.1.2.3/v1", ()) is not None
    assert refused("http://10.1.2.3/v1", ("10.0.0.0/8",)) is None
    assert refused("http://[::1]:11434/v1", ()) is None


@contextmanager
def _port(kind: str) -> Iterator[int]:
    """A local port that is closed, open to a service that is no HTTP server (it says
    something and hangs up), or filtered-like (it accepts and never answers)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    if kind == "closed":
        listener.close()
        yield port
        return
    listener.listen()
    held: list[socket.socket] = []

    def serve() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            if kind == "open":
                conn.sendall(b"SSH-2.0-OpenSSH_9.6\r\n")
                conn.close()
            else:
                held.append(conn)

    threading.Thread(target=serve, daemon=True).start()
    try:
        yield port
    finally:
        listener.close()
        for conn in held:
            conn.close()


def _try(url: str) -> str:
    endpoint = Endpoint(url, "m", timeout=1.0)
    works, sentence = config.try_endpoint(
        config.JudgeSetup(endpoint, Band(), 1, 0, False, config.SETTINGS)
    )
    assert not works
    return sentence.replace(url, "URL")


@pytest.mark.django_db
def test_a_try_says_the_same_of_closed_open_and_filtered_ports() -> None:
    said = set()
    for kind in ("closed", "open", "filtered"):
        with _port(kind) as port:
            said.add(_try(f"http://127.0.0.1:{port}/v1"))
    with chat_server(Step(status=404)) as server:
        said.add(_try(server.url))
    assert len(said) == 1, said


FORM = {
    "enabled": "on",
    "model": "m",
    "low": "0.3",
    "high": "0.8",
    "timeout": "20",
    "concurrency": "1",
    "daily_tokens": "0",
}


@pytest.mark.django_db
@pytest.mark.usefixtures("fake_engine")
def test_changing_the_endpoints_origin_forgets_the_saved_key(admin_client: Client) -> None:
    with chat_server() as first, chat_server() as second:
        admin_client.post("/verifiers/llm-judge/", {**FORM, "url": first.url, "key": "k" * 20})
        # Same origin, another path: the key stays.
        admin_client.post("/verifiers/llm-judge/", {**FORM, "url": first.url + "/", "key": ""})
        assert JudgeConfig.objects.get().key == "k" * 20
        # A second admin changes only the URL and tries it.
        saved = admin_client.post(
            "/verifiers/llm-judge/", {**FORM, "url": second.url, "key": ""}, follow=True
        )
        assert "The saved API key was removed" in saved.content.decode()
        admin_client.post("/verifiers/llm-judge/try/")
    assert JudgeConfig.objects.get().key == ""
    [asked] = second.requests
    assert asked["auth"] is None


@pytest.mark.django_db
@pytest.mark.usefixtures("fake_engine")
@pytest.mark.parametrize(
    ("url", "timeout", "said"),
    [
        ("http://169.254.169.254/v1", "20", "metadata"),
        ("http://10.0.0.5:8000/v1", "20", "LLM_JUDGE_ALLOW"),
        ("http://user:pw@example.com/v1", "20", "no user name or password"),
        ("http://localhost:11434/v1", "600", "less than or equal to 30"),
    ],
)
def test_the_page_refuses_what_the_judge_may_not_reach_or_wait_for(
    admin_client: Client, url: str, timeout: str, said: str
) -> None:
    response = admin_client.post("/verifiers/llm-judge/", {**FORM, "url": url, "timeout": timeout})
    assert response.status_code == 400
    assert said in response.content.decode()
    assert not JudgeConfig.objects.exists()


@pytest.mark.django_db
@pytest.mark.usefixtures("fake_engine")
def test_an_allowed_network_may_be_saved(admin_client: Client) -> None:
    with override_settings(LLM_JUDGE_ALLOW=["10.0.0.0/8"]):
        response = admin_client.post("/verifiers/llm-judge/", {**FORM, "url": "http://10.0.0.5/v1"})
    assert response.status_code == 302
    assert JudgeConfig.objects.get().url == "http://10.0.0.5/v1"


@pytest.mark.django_db
def test_a_row_saved_before_the_cap_is_called_within_it() -> None:
    JudgeConfig.objects.create(url="http://localhost:1/v1", model="m", timeout=600)
    setup = config.current()
    assert setup is not None and setup.endpoint.timeout == 30
