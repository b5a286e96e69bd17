"""The LLM judge against endpoints that trickle, hang, redirect and send oversized or
hostile replies (issue 44, items 1-3), each a real local HTTP server: every claim falls
back with its mark, within its deadline, and nothing gets past the judge."""

from __future__ import annotations

import json
import re
import socket
import time
from pathlib import Path

import pytest

from grounding_app.engine import Band, Outcome, Ruling
from grounding_app.llm_judge import client
from grounding_app.llm_judge.client import Endpoint, complete, messages, parse_ruling
from grounding_app.llm_judge.judge import LLMJudge, Pause, metered
from tests.llm_judge.chat_server import Step, answer, chat_server, completion
from tests.llm_judge.test_judge import CLAIM, MemoryLedger, claim, judge_of

GUNICORN = Path(__file__).resolve().parents[2] / "gunicorn.conf.py"


def _timed(judge: LLMJudge, n: int = 1) -> tuple[list[Outcome], float]:
    started = time.monotonic()
    outcomes = judge.judge([claim(k) for k in range(n)] if n > 1 else [CLAIM])
    return outcomes, time.monotonic() - started


# Item 1: one deadline per call, and one per check request.


def test_a_trickling_endpoint_cannot_stretch_a_call_past_its_deadline() -> None:
    # One byte every 0.1 s: each read returns well within the timeout, the whole body
    # would take ~20 s.
    with chat_server(Step(answer("supported").content, trickle=0.1)) as server:
        outcomes, took = _timed(judge_of(server, timeout=1.0))
    assert outcomes == [Outcome(None, "timeout")]
    assert took < 1.6


def test_a_hung_endpoint_with_every_claim_sent_ends_within_the_requests_budget() -> None:
    with chat_server(Step(answer("supported").content, delay=30)) as server:
        endpoint = Endpoint(server.url, "m", timeout=1.0)
        judge = LLMJudge(
            endpoint, Band(everything=True), MemoryLedger(), concurrency=2, seconds=1.5
        )
        outcomes, took = _timed(judge, 6)
    assert took < 2.2
    assert [o.fell_back for o in outcomes[:2]] == ["timeout", "timeout"]
    assert [o.fell_back for o in outcomes[2:]] == ["deadline"] * 4  # never sent or cut


def test_a_checks_judging_ends_within_its_budget_counted_from_the_checks_start() -> None:
    """The budget counts the verifier's time before the judge too: a large request whose
    verifier took 20 s still gave the judge its whole 40 s, past gunicorn's 60 s worker
    timeout. A check past its budget sends nothing."""
    with chat_server(Step(answer("supported").content, delay=30)) as server:
        endpoint = Endpoint(server.url, "m", timeout=5.0)
        judge = LLMJudge(endpoint, Band(everything=True), MemoryLedger(), seconds=1.5)
        with metered():
            time.sleep(1.0)  # the verifier's turn
            outcomes, took = _timed(judge, 2)
        assert took < 0.8 and [o.fell_back for o in outcomes] == ["deadline"] * 2
        assert len(server.requests) == 2
        with metered():
            time.sleep(1.6)
            outcomes, took = _timed(judge, 2)
        assert took < 0.2 and [o.fell_back for o in outcomes] == ["deadline"] * 2
    assert len(server.requests) == 2


def test_a_hung_endpoint_pauses_the_judge_so_later_checks_fall_back_at_once() -> None:
    """Three calls time out in a row: the judge pauses, so the next check's claims fall
    back at once ("unavailable") instead of each check waiting out its deadline; after
    the pause the endpoint is tried again, and an answer ends it."""
    hang = Step(answer("supported").content, delay=30)
    script = [hang, hang, hang, answer("supported", passage=0)]
    with chat_server(*script) as server:
        endpoint = Endpoint(server.url, "m", timeout=0.3)
        pause = Pause(after=3, seconds=0.5)
        judge = LLMJudge(
            endpoint, Band(everything=True), MemoryLedger(), concurrency=1, pause=pause
        )
        outcomes, took = _timed(judge, 5)
        assert [o.fell_back for o in outcomes] == ["timeout"] * 3 + ["unavailable"] * 2
        assert took < 1.5 and len(server.requests) == 3
        later, took = _timed(judge, 4)
        assert [o.fell_back for o in later] == ["unavailable"] * 4
        assert took < 0.1 and len(server.requests) == 3  # nothing sent while paused
        time.sleep(0.6)
        again, _ = _timed(judge)
    assert again == [Outcome(Ruling(True, (), 0))] and not pause.paused()


def test_a_resolver_that_hangs_cannot_stretch_a_call_past_its_deadline(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The endpoint's name is looked up under the call's deadline too: a lookup that
    hung (a dead DNS server) held the worker for as long as the system resolver tried."""
    real = socket.getaddrinfo

    def slow(host: str, *args: object, **kwargs: object) -> object:
        if host == "judge.slow":
            time.sleep(4)
            host = "127.0.0.1"
        return real(host, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(socket, "getaddrinfo", slow)
    with chat_server(answer("supported")) as server:
        endpoint = Endpoint(server.url.replace("127.0.0.1", "judge.slow"), "m", timeout=1.0)
        outcomes, took = _timed(LLMJudge(endpoint, Band(everything=True), MemoryLedger()))
    assert outcomes == [Outcome(None, "timeout")]
    assert took < 1.6 and server.requests == []


def test_a_call_cut_by_the_checks_own_deadline_does_not_count_against_the_endpoint() -> None:
    pause = Pause(after=1, seconds=60)
    pause.failed("deadline")
    assert not pause.paused()
    pause.failed("http 503")
    assert pause.paused()
    pause.answered()
    assert not pause.paused()


def test_the_judges_time_is_bounded_below_the_worker_timeout_whatever_the_settings() -> None:
    worker = int(re.search(r"^timeout = (\d+)", GUNICORN.read_text(), re.M).group(1))  # type: ignore[union-attr]
    assert client.CALL_SECONDS <= client.REQUEST_SECONDS <= worker - 15
    judge = LLMJudge(Endpoint("http://127.0.0.1:9/v1", "m"), Band(), MemoryLedger(), seconds=600)
    assert judge.seconds == client.REQUEST_SECONDS


def test_a_call_never_outlives_its_timeout_however_large_it_is_set() -> None:
    with chat_server(Step(answer("supported").content, trickle=0.05)) as server:
        endpoint = Endpoint(server.url, "m", timeout=600.0)
        started = time.monotonic()
        with pytest.raises(client.EndpointError) as failed:
            complete(endpoint, messages(CLAIM), deadline=started + 0.8)
    assert failed.value.reason == "deadline"
    assert time.monotonic() - started < 1.4


# Item 2: bounded replies.

DEEP = b"[" * 200_000 + b"]" * 200_000


GOOD = answer("supported").content
BAD = "bad response"


@pytest.mark.parametrize(
    ("step", "reason"),
    [
        (Step(raw=DEEP), BAD),  # the body itself
        (Step(raw=b'{"choices": [{"message": {"content": 1}}]}'), BAD),
        (Step(raw=b"\xff\xfe not utf-8"), BAD),
        (Step(raw=b" " * 2_000_000), BAD),  # over the body's cap, declared in Content-Length
        (Step(endless=True), BAD),  # over the cap, no length declared
        (Step(GOOD, usage={"prompt_tokens": 1e30}), BAD),
        (Step(GOOD, usage={"prompt_tokens": 10**30}), BAD),
        (Step(GOOD, usage={"completion_tokens": -5000}), BAD),
        (Step(GOOD, usage={"prompt_tokens": True}), BAD),
        (Step(GOOD, usage={"prompt_tokens": "40"}), BAD),
        # a well-formed chat completion whose answer nests deep is no ruling, twice
        (Step(raw=json.dumps(completion("[" * 200_000 + "]" * 200_000)).encode()), "bad answer"),
    ],
    ids=[
        "deep-body",
        "content-not-text",
        "not-utf8",
        "oversized",
        "endless",
        "float-tokens",
        "huge-tokens",
        "negative-tokens",
        "bool-tokens",
        "string-tokens",
        "deep-content",
    ],
)
def test_hostile_replies_fall_back(step: Step, reason: str) -> None:
    ledger = MemoryLedger()
    with chat_server(step) as server:
        outcomes, took = _timed(judge_of(server, ledger, timeout=5.0))
    assert outcomes == [Outcome(None, reason)]
    assert all(u.prompt_tokens >= 0 and u.completion_tokens >= 0 for u in ledger.recorded)
    assert took < 5
    assert server.sent_bytes < 100_000_000  # the endless body was cut off, not read whole


def test_a_deep_answer_is_no_ruling_and_raises_nothing() -> None:
    assert parse_ruling("[" * 200_000 + "]" * 200_000, passages=1) is None
    nested = '{"verdict": "supported", "unsupported_words": ' + "[" * 40 + "]" * 40 + "}"
    assert parse_ruling(nested, passages=1) is None
    many = json.dumps({"verdict": "unsupported", "unsupported_words": ["w"] * 1000})
    assert parse_ruling(many, passages=1) is None


def test_negative_counts_do_not_switch_the_daily_cap_off() -> None:
    lying = Step(GOOD, usage={"prompt_tokens": -(10**6), "completion_tokens": 0})
    ledger = MemoryLedger()
    with chat_server(lying, answer("supported")) as server:
        judge = judge_of(server, ledger, daily_tokens=50, concurrency=1)
        assert judge.judge([claim(1)]) == [Outcome(None, "bad response")]
        assert judge.judge([claim(2)]) == [Outcome(Ruling(True))]
        assert judge.judge([claim(3)]) == [Outcome(None, "daily cap")]
    assert ledger.spent_today() == 50


# Item 3: the key never crosses to another origin.


def test_a_redirect_is_never_followed_and_the_key_stays_home() -> None:
    with chat_server() as elsewhere:
        moved = Step(status=302, location=elsewhere.url + "/chat/completions")
        with chat_server(moved) as endpoint:
            outcomes = judge_of(endpoint).judge([CLAIM])
            [asked] = endpoint.requests
    assert asked["auth"] == "Bearer secret"
    assert outcomes == [Outcome(None, "http 302")]
    assert elsewhere.requests == []  # neither the key nor the request reached it


def test_a_good_answer_still_reads_through_every_bound() -> None:
    with chat_server(Step(answer("supported", passage=1).content, trickle=0.001)) as server:
        assert judge_of(server, timeout=10).judge([CLAIM]) == [Outcome(Ruling(True, (), 1))]
