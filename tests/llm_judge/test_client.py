"""The judge as a well-kept client of real servers (issue 44, item 5): JSON asked for as
the server offers it and remembered, max_tokens capped, a server answering one request at
a time queued for rather than timed out, and the cache shared by every process."""

from __future__ import annotations

import pytest
from django.test import override_settings

from grounding_app.engine import Band, Outcome, Ruling
from grounding_app.llm_judge import client, config
from grounding_app.llm_judge.client import Endpoint
from grounding_app.llm_judge.judge import LLMJudge
from tests.llm_judge.chat_server import Step, answer, chat_server
from tests.llm_judge.test_judge import CLAIM, MemoryLedger, claim

SUPPORTED = Outcome(Ruling(True, (), 0))


def _judge(url: str, timeout: float = 5.0, **kwargs: object) -> LLMJudge:
    endpoint = Endpoint(url, "m", timeout=timeout)
    return LLMJudge(endpoint, Band(everything=True), MemoryLedger(), **kwargs)  # type: ignore[arg-type]


def _formats(requests: list[dict[str, object]]) -> list[str | None]:
    return [(r.get("response_format") or {}).get("type") for r in requests]  # type: ignore[attr-defined]


def test_a_json_schema_is_asked_for_with_max_tokens() -> None:
    with chat_server() as server:
        assert _judge(server.url).judge([CLAIM]) == [SUPPORTED]
    [sent] = server.requests
    assert sent["max_tokens"] == client.MAX_TOKENS
    assert sent["response_format"]["type"] == "json_schema"
    schema = sent["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["verdict"]["enum"] == ["supported", "unsupported"]


@pytest.mark.parametrize("refusal", [400, 422, 500])
@pytest.mark.parametrize(
    ("offered", "asked", "then"),
    [
        (frozenset({"json_object"}), ["json_schema", "json_object"], "json_object"),
        (frozenset(), ["json_schema", "json_object", None], None),
    ],
)
def test_the_format_the_server_takes_is_found_and_remembered(
    offered: frozenset[str], asked: list[str | None], then: str | None, refusal: int
) -> None:
    ledger = MemoryLedger()
    with chat_server(formats=offered, refusal=refusal) as server:
        judge = LLMJudge(Endpoint(server.url, "m"), Band(everything=True), ledger)
        assert judge.judge([claim(1)]) == [SUPPORTED]
        assert _formats(server.requests) == asked
        assert judge.judge([claim(2)]) == [SUPPORTED]
    assert _formats(server.requests)[len(asked) :] == [then]
    assert client.response_format(judge.endpoint) == (then or client.PLAIN)
    assert [u.calls for u in ledger.recorded] == [len(asked), 1]


def test_a_server_answering_one_request_at_a_time_is_queued_for_not_timed_out() -> None:
    # 0.3 s an answer, one at a time, 1 s a call: the default number in flight waits at
    # most one answer before its own starts.
    with chat_server(Step(answer("supported").content, delay=0.3), serial=True) as server:
        outcomes = _judge(server.url, timeout=1.0).judge([claim(n) for n in range(6)])
    assert [o.fell_back for o in outcomes] == [None] * 6
    assert len(server.requests) == 6


def test_the_queue_ends_at_the_requests_deadline() -> None:
    with chat_server(Step(answer("supported").content, delay=0.3), serial=True) as server:
        judge = _judge(server.url, concurrency=1, seconds=0.5)
        outcomes = judge.judge([claim(n) for n in range(4)])
    assert [o.fell_back for o in outcomes] == [None, "deadline", "deadline", "deadline"]


@pytest.mark.django_db
def test_a_ruling_is_shared_by_every_process() -> None:
    with chat_server() as server, override_settings(LLM_JUDGE_URL=server.url, LLM_JUDGE_BAND="all"):
        setup = config.current()
        assert setup is not None
        # Two workers: each builds its own judge, with nothing in its memory.
        first, second = setup.build(), setup.build()
        assert first.judge([CLAIM]) == [SUPPORTED]
        assert second.judge([CLAIM]) == [SUPPORTED]
    assert len(server.requests) == 1
