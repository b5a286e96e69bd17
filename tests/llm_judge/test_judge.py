"""The LLM judge against a real local chat-completions server with scripted answers."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from grounding_app.engine import Band, Escalated, Outcome, Ruling
from grounding_app.llm_judge.client import Endpoint, parse_ruling
from grounding_app.llm_judge.judge import LLMJudge, Usage
from tests.llm_judge.chat_server import TOKENS, ChatServer, Step, answer, chat_server

CLAIM = Escalated(
    "It won eleven Academy Awards.",
    "Titanic was directed by James Cameron.",
    ("Titanic is a 1997 film.", "The movie won 11 Academy Awards."),
    0.5,
    "en",
)
PER_CALL = sum(TOKENS)


@dataclass
class MemoryLedger:
    spent: int = 0
    recorded: list[Usage] = field(default_factory=list)

    def spent_today(self) -> int:
        return self.spent + sum(u.tokens for u in self.recorded)

    def record(self, usage: Usage) -> None:
        self.recorded.append(usage)


def judge_of(
    server: ChatServer,
    ledger: MemoryLedger | None = None,
    *,
    timeout: float = 5.0,
    concurrency: int = 4,
    daily_tokens: int = 0,
) -> LLMJudge:
    endpoint = Endpoint(server.url, "judge-model", "secret", timeout)
    return LLMJudge(
        endpoint,
        Band(0.35, 0.75),
        ledger or MemoryLedger(),
        concurrency=concurrency,
        daily_tokens=daily_tokens,
    )


def claim(n: int) -> Escalated:
    return Escalated(f"Claim number {n}.", "", ("Evidence.",), 0.5, "en")


def test_a_well_formed_answer_is_the_ruling_and_its_cost_is_recorded() -> None:
    ledger = MemoryLedger()
    with chat_server(answer("supported", passage=1)) as server:
        outcomes = judge_of(server, ledger).judge([CLAIM])
    assert outcomes == [Outcome(Ruling(True, (), 1))]
    [sent] = server.requests
    assert sent["path"] == "/v1/chat/completions"
    assert sent["auth"] == "Bearer secret"
    assert sent["model"] == "judge-model"
    prompt = sent["messages"][-1]["content"]
    for part in (CLAIM.claim, CLAIM.context, "[0] Titanic is a 1997 film.", "[1] The movie"):
        assert part in prompt
    [usage] = ledger.recorded
    assert (usage.calls, usage.failures, usage.prompt_tokens, usage.completion_tokens) == (
        1,
        0,
        *TOKENS,
    )
    assert usage.seconds > 0


def test_malformed_json_is_asked_again_once() -> None:
    with chat_server(
        Step("Sure! The claim is supported."), answer("unsupported", ("eleven",))
    ) as server:
        outcomes = judge_of(server).judge([CLAIM])
    assert outcomes == [Outcome(Ruling(False, ("eleven",), None))]
    first, second = server.requests
    assert second["messages"][: len(first["messages"])] == first["messages"]
    assert second["messages"][-2] == {
        "role": "assistant",
        "content": "Sure! The claim is supported.",
    }


def test_malformed_twice_falls_back_after_two_requests() -> None:
    ledger = MemoryLedger()
    with chat_server(Step('{"verdict": "maybe"}')) as server:
        outcomes = judge_of(server, ledger).judge([CLAIM])
    assert outcomes == [Outcome(None, "bad answer")]
    assert len(server.requests) == 2
    assert (ledger.recorded[0].calls, ledger.recorded[0].failures) == (2, 1)


@pytest.mark.parametrize(
    ("step", "reason"),
    [
        (Step(status=429), "http 429"),
        (Step(status=500), "http 500"),
        (Step(answer("supported").content, delay=1.5), "timeout"),
    ],
)
def test_endpoint_failures_fall_back_with_the_reason(step: Step, reason: str) -> None:
    ledger = MemoryLedger()
    with chat_server(step) as server:
        outcomes = judge_of(server, ledger, timeout=0.3).judge([CLAIM])
    assert outcomes == [Outcome(None, reason)]
    assert len(server.requests) == 1  # no retry on a failed request
    assert (ledger.recorded[0].calls, ledger.recorded[0].failures) == (1, 1)


def test_an_unreachable_endpoint_falls_back() -> None:
    with chat_server() as server:
        url = server.url
    judge = LLMJudge(Endpoint(url, "m", timeout=1.0), Band(everything=True), MemoryLedger())
    assert judge.judge([CLAIM]) == [Outcome(None, "unreachable")]


def test_the_cache_answers_repeats_and_failures_are_not_cached() -> None:
    with chat_server(Step(status=500), answer("supported", passage=0)) as server:
        judge = judge_of(server)
        assert judge.judge([CLAIM]) == [Outcome(None, "http 500")]
        assert judge.judge([CLAIM]) == [Outcome(Ruling(True, (), 0))]
        assert judge.judge([CLAIM, CLAIM]) == [Outcome(Ruling(True, (), 0))] * 2
    assert len(server.requests) == 2


def test_the_daily_cap_stops_calls() -> None:
    spent_before = MemoryLedger(spent=10 * PER_CALL)
    with chat_server() as server:
        capped = judge_of(server, spent_before, daily_tokens=10 * PER_CALL)
        assert capped.judge([claim(1)]) == [Outcome(None, "daily cap")]
    assert server.requests == [] and spent_before.recorded == []

    ledger = MemoryLedger()
    with chat_server() as server:
        judge = judge_of(server, ledger, daily_tokens=2 * PER_CALL, concurrency=1)
        outcomes = judge.judge([claim(n) for n in range(4)])
        assert judge.judge([claim(9)]) == [Outcome(None, "daily cap")]
    assert [o.fell_back for o in outcomes] == [None, None, "daily cap", "daily cap"]
    assert len(server.requests) == 2
    assert ledger.spent_today() == 2 * PER_CALL


def test_requests_in_flight_stay_within_the_concurrency_limit() -> None:
    with chat_server(Step(answer("supported").content, delay=0.2)) as server:
        outcomes = judge_of(server, concurrency=2).judge([claim(n) for n in range(6)])
    assert all(o.ruling == Ruling(True) for o in outcomes)
    assert len(server.requests) == 6
    assert server.most_in_flight == 2


def test_the_band_decides_what_is_wanted() -> None:
    with chat_server() as server:
        judge = judge_of(server)
    assert [judge.wants(s) for s in (0.2, 0.35, 0.5, 0.75, 0.9)] == [False, True, True, True, False]
    assert Band.parse("all") == Band(everything=True)
    assert 0.99 in Band.parse("all") and 0.1 not in Band.parse("0.35,0.75")
    for bad in ("0.8,0.2", "1", "a,b", "0,1.5"):
        with pytest.raises(ValueError):
            Band.parse(bad)


@pytest.mark.parametrize(
    "content",
    [
        "not json",
        "[]",
        '{"verdict": "yes"}',
        '{"verdict": "supported", "unsupported_words": "x"}',
        '{"verdict": "supported", "supporting_passage": 2}',
        '{"verdict": "supported", "supporting_passage": true}',
        '{"verdict": "unsupported", "unsupported_words": [1]}',
    ],
)
def test_answers_not_of_the_form_asked_are_refused(content: str) -> None:
    assert parse_ruling(content, passages=2) is None


def test_a_fenced_answer_is_read() -> None:
    fenced = '```json\n{"verdict": "unsupported", "unsupported_words": ["Brad Pitt"]}\n```'
    assert parse_ruling(fenced, passages=1) == Ruling(False, ("Brad Pitt",), None)
