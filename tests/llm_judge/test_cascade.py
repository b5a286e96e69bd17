"""The engine's escalation hook with the LLM judge behind it: the band, rulings that
replace verdicts, fallbacks that keep them, and the daily spending in the database."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest
from django.test import override_settings
from django.utils import timezone

from grounding_app.active_verifier.checker import Checker, checker, serving
from grounding_app.batch.exports import claims_of
from grounding_app.common.serialize import grounded_from_json, grounded_to_json
from grounding_app.engine import (
    FEATURE_JUDGE,
    LLM_JUDGE,
    Band,
    CheckRequest,
    CheckResponse,
    Fact,
    FeatureJudge,
    GroundingEngine,
    HashingEncoder,
)
from grounding_app.formats.from_check import grounded_from_check
from grounding_app.llm_judge.client import Endpoint
from grounding_app.llm_judge.config import from_settings
from grounding_app.llm_judge.judge import LLMJudge
from grounding_app.llm_judge.ledger import DatabaseLedger
from grounding_app.llm_judge.models import JudgeDay
from tests.conftest import FAKE_JUDGE_BIAS, FAKE_JUDGE_WEIGHTS
from tests.llm_judge.chat_server import TOKENS, Step, answer, chat_server

ANSWER = (
    "Titanic was directed by James Cameron. It starred Brad Pitt and Kate Winslet. "
    "The movie won 11 Academy Awards."
)
REQUEST = CheckRequest(
    ANSWER,
    (
        Fact(
            "Titanic is a 1997 film directed by James Cameron. It stars Kate Winslet and "
            "Leonardo DiCaprio. The movie won 11 Academy Awards."
        ),
    ),
    enable_claim_level_score=True,
)


@pytest.fixture(scope="module")
def engine() -> GroundingEngine:
    encoder = HashingEncoder()
    return GroundingEngine(encoder, FeatureJudge(encoder, FAKE_JUDGE_WEIGHTS, FAKE_JUDGE_BIAS))


@pytest.fixture(scope="module")
def local(engine: GroundingEngine) -> CheckResponse:
    return engine.check(REQUEST)


def scores(response: CheckResponse) -> list[float]:
    return [c.score for c in response.claims if c.score is not None]


def test_claims_outside_the_band_never_call_it(
    engine: GroundingEngine, local: CheckResponse
) -> None:
    assert len(scores(local)) == 3
    above = Band(max(scores(local)) + 0.001, 1.0)
    with chat_server() as server:
        judge = LLMJudge(Endpoint(server.url, "m"), above, _Nothing())
        assert engine.check(REQUEST, judge) == local
    assert server.requests == []


def test_rulings_replace_verdicts_and_failures_keep_them_marked(
    engine: GroundingEngine, local: CheckResponse
) -> None:
    script = (
        answer("unsupported", passage=None),
        answer("unsupported", ("Brad Pitt",)),
        Step(status=500),
    )
    with chat_server(*script) as server:
        judge = LLMJudge(
            Endpoint(server.url, "m"), Band(everything=True), _Nothing(), concurrency=1
        )
        response = engine.check(REQUEST, judge)
    assert len(server.requests) == 3
    directed, starred, won = response.claims
    assert (directed.checked_by, directed.score, directed.citation_indices) == (LLM_JUDGE, 0.0, ())
    assert (starred.checked_by, starred.llm_judge) == (LLM_JUDGE, None)
    raw = ANSWER.encode()
    assert [raw[a:b].decode() for a, b in starred.unsupported] == ["Brad Pitt"]
    kept = local.claims[2]
    assert replace(won, citation_indices=()) == replace(
        kept, citation_indices=(), llm_judge="fell back: http 500"
    )
    assert won.checked_by == FEATURE_JUDGE
    assert [response.cited_chunks[k] for k in won.citation_indices] == [
        local.cited_chunks[k] for k in kept.citation_indices
    ]
    assert response.support_score == pytest.approx((0.0 + 0.0 + won.score) / 3)


def test_stored_results_and_batch_exports_say_which_judge_decided(
    engine: GroundingEngine,
) -> None:
    """What a review or a batch line stores keeps `llm_judge`, and the export names the
    judge (`checkedBy`) and the fallback (`llmJudge`) as the API does."""
    with chat_server(answer("supported", passage=0), Step(status=429)) as server:
        judge = LLMJudge(
            Endpoint(server.url, "m"), Band(everything=True), _Nothing(), concurrency=1
        )
        response = engine.check(REQUEST, judge)
    stored = grounded_to_json(grounded_from_check(REQUEST, response))
    assert grounded_from_json(stored) == grounded_from_check(REQUEST, response)
    exported = claims_of(stored)
    assert [(c["checkedBy"], c.get("llmJudge")) for c in exported] == [
        ("LLM_JUDGE", None),
        ("FEATURE_JUDGE", "fell back: http 429"),
        ("FEATURE_JUDGE", "fell back: http 429"),
    ]


def test_a_supported_ruling_cites_the_passage_it_names(engine: GroundingEngine) -> None:
    request = CheckRequest("The movie won 11 Academy Awards.", REQUEST.facts)
    with chat_server(answer("supported", passage=0)) as server:
        judge = LLMJudge(Endpoint(server.url, "m"), Band(everything=True), _Nothing())
        [claim] = engine.check(request, judge).claims
        [sent] = server.requests
    evidence = sent["messages"][-1]["content"].split("[0] ")[1].split("\n")[0]
    response = engine.check(request, judge)  # cached: the server is gone
    assert response.claims == (claim,)
    assert claim.checked_by == LLM_JUDGE
    [cited] = claim.citation_indices
    assert response.cited_chunks[cited].chunk_text.strip() in evidence


class _Nothing:
    def spent_today(self) -> int:
        return 0

    def record(self, usage: object) -> None:
        pass


@pytest.fixture
def judged_by_settings(engine: GroundingEngine) -> Iterator[None]:
    with serving(Checker(engine)):
        yield


@pytest.mark.django_db
def test_the_checker_builds_the_judge_from_settings_and_counts_the_day(
    judged_by_settings: None,
) -> None:
    with (
        chat_server() as server,
        override_settings(
            LLM_JUDGE_URL=server.url,
            LLM_JUDGE_BAND="all",
            LLM_JUDGE_DAILY_TOKENS=4 * sum(TOKENS),
            LLM_JUDGE_CONCURRENCY=1,  # with more, calls in flight at once may pass the cap
        ),
    ):
        first = checker().check(REQUEST).response
        assert {c.checked_by for c in first.claims if c.score is not None} == {LLM_JUDGE}
        day = JudgeDay.objects.get(day=timezone.now().date())
        assert (day.calls, day.failures, day.tokens) == (3, 0, 3 * sum(TOKENS))
        assert day.seconds > 0
        other = CheckRequest("Kate Winslet starred. James Cameron directed.", REQUEST.facts)
        second = checker().check(other).response
    assert len(server.requests) == 4  # the fourth call reached the cap
    assert [c.llm_judge for c in second.claims] == [None, "fell back: daily cap"]
    assert JudgeDay.objects.get().calls == 4


@pytest.mark.django_db
def test_no_url_no_judge_and_a_bad_band_is_refused() -> None:
    with override_settings(LLM_JUDGE_URL=""):
        assert from_settings() is None
    with override_settings(LLM_JUDGE_URL="http://127.0.0.1:9/v1", LLM_JUDGE_BAND="high"):
        from django.core.exceptions import ImproperlyConfigured

        with pytest.raises(ImproperlyConfigured):
            from_settings()
    assert DatabaseLedger().spent_today() == 0
