"""The LLM judge working now: Hebrew claims go to it only when it takes them, the
checker follows what the Verifier page saved (else the settings), and each check
request carries what the judge did for it."""

from __future__ import annotations

import pytest
from django.test import override_settings

from grounding_app.active_verifier.checker import FOLLOW_SECONDS, Checker
from grounding_app.engine import (
    LLM_JUDGE,
    WORD_MATCHING,
    Band,
    CheckRequest,
    Fact,
    FeatureJudge,
    GroundingEngine,
    HashingEncoder,
)
from grounding_app.llm_judge.client import Endpoint
from grounding_app.llm_judge.judge import LLMJudge
from grounding_app.llm_judge.models import JudgeConfig
from tests.conftest import FAKE_JUDGE_BIAS, FAKE_JUDGE_WEIGHTS
from tests.llm_judge.chat_server import TOKENS, answer, chat_server
from tests.llm_judge.test_judge import MemoryLedger

FACT = Fact(
    "טיטאניק הוא סרט אמריקאי משנת 1997. את הסרט ביים, כתב והפיק ג'יימס קמרון. "
    "בסרט מככבים קייט וינסלט ולאונרדו דיקפריו."
)
HEBREW = CheckRequest(
    "את הסרט ביים ג'יימס קמרון. בסרט מככבים קייט וינסלט ובראד פיט.",
    (FACT,),
    enable_claim_level_score=True,
)
ENGLISH = CheckRequest(
    "Titanic was directed by James Cameron. It starred Kate Winslet.",
    (Fact("Titanic is a 1997 film directed by James Cameron. It stars Kate Winslet."),),
    enable_claim_level_score=True,
)
NOWHERE = Band(1.0, 1.0)  # no English claim scores exactly 1: none is in the band


@pytest.fixture(scope="module")
def engine() -> GroundingEngine:
    encoder = HashingEncoder()
    return GroundingEngine(encoder, FeatureJudge(encoder, FAKE_JUDGE_WEIGHTS, FAKE_JUDGE_BIAS))


def test_hebrew_claims_go_to_the_judge_only_when_it_takes_them(engine: GroundingEngine) -> None:
    local = engine.check(HEBREW)
    assert [c.checked_by for c in local.claims] == [WORD_MATCHING, WORD_MATCHING]
    with chat_server(answer("supported", passage=0), answer("unsupported", ("בראד", "פיט"))) as (
        server
    ):
        endpoint = Endpoint(server.url, "m")
        off = engine.check(HEBREW, LLMJudge(endpoint, Band(everything=True), MemoryLedger()))
        assert server.requests == []  # 'all' is every claim the verifier reads, not these
        assert [c.checked_by for c in off.claims] == [WORD_MATCHING, WORD_MATCHING]
        taking = LLMJudge(endpoint, NOWHERE, MemoryLedger(), concurrency=1, unread_languages=True)
        judged = engine.check(HEBREW, taking)
    assert len(server.requests) == 2
    prompts = [r["messages"][1]["content"] for r in server.requests]
    assert "Claim: את הסרט ביים ג'יימס קמרון." in prompts[0]
    assert "ג'יימס קמרון" in prompts[0].split("Claim:")[0]  # the fact's passages are read
    assert [c.checked_by for c in judged.claims] == [LLM_JUDGE, LLM_JUDGE]
    assert [c.score for c in judged.claims] == [1.0, 0.0]
    assert judged.claims[0].citation_indices and not judged.claims[1].citation_indices
    words = [HEBREW.answer.encode()[a:b].decode() for a, b in judged.claims[1].unsupported]
    assert words == ["בראד", "פיט"]


def test_english_claims_outside_the_band_stay_with_the_verifier_when_it_takes_hebrew(
    engine: GroundingEngine,
) -> None:
    with chat_server(answer("supported")) as server:
        taking = LLMJudge(Endpoint(server.url, "m"), NOWHERE, MemoryLedger(), unread_languages=True)
        response = engine.check(ENGLISH, taking)
    assert server.requests == []
    assert {c.checked_by for c in response.claims} == {"feature_judge"}


@pytest.mark.django_db
def test_the_checker_follows_the_page_else_the_settings_and_meters_each_check(
    engine: GroundingEngine,
) -> None:
    with chat_server(answer("supported")) as page, chat_server(answer("supported")) as named:
        follower = Checker(engine)
        with override_settings(LLM_JUDGE_URL=named.url, LLM_JUDGE_BAND="all"):
            first = follower.check(ENGLISH)
            assert len(named.requests) == 2 and page.requests == []
            assert first.llm_judge.claims == 2 and first.llm_judge.calls == 2
            assert first.llm_judge.tokens == 2 * sum(TOKENS)
            row = JudgeConfig.objects.create(
                pk=JudgeConfig.SINGLETON, url=page.url, model="page-model", band="all"
            )
            # Within FOLLOW_SECONDS the checker has not looked again; then it has.
            assert follower.escalation() is not None
            follower.forget_followed()
            second = follower.check(CheckRequest(ENGLISH.answer + " It is long.", ENGLISH.facts))
            assert len(page.requests) == 3 and len(named.requests) == 2
            assert {r["model"] for r in page.requests} == {"page-model"}
            assert second.llm_judge.calls == 3
            row.enabled = False
            row.save()
            assert follower.escalation(now=10**9) is None  # off here wins over the settings
            row.delete()
            later = follower.escalation(now=10**9 + 2 * FOLLOW_SECONDS)
            assert isinstance(later, LLMJudge) and later.endpoint.url == named.url
        plain = Checker(engine, escalation=None).check(ENGLISH)
    assert plain.llm_judge.calls == 0 and plain.llm_judge.claims == 0
