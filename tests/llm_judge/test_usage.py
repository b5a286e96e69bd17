"""What the LLM judge did, per check request (a response header) and per batch job (the
job's API resource and its page), against a real local chat-completions server."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.test import Client, override_settings

from grounding_app.active_verifier.checker import Checker, serving
from grounding_app.api.models import ApiKey
from grounding_app.batch import running
from grounding_app.batch.models import BatchChunk, BatchJob, BatchLine
from grounding_app.engine import GroundingEngine
from tests.batch.conftest import jsonl
from tests.llm_judge.chat_server import TOKENS, Step, answer, chat_server

pytestmark = pytest.mark.django_db

URL = "/v1/projects/p/locations/global/groundingConfigs/default_grounding_config:check"
BODY = {
    "answerCandidate": "Titanic was directed by James Cameron. It starred Kate Winslet.",
    "facts": [{"factText": "Titanic is a 1997 film directed by James Cameron."}],
}


@pytest.fixture
def key() -> str:
    return ApiKey.issue("usage-tests")[1]


@pytest.fixture
def follower(fake_engine: GroundingEngine) -> Iterator[Checker]:
    """The fake engine, following the LLM judge the settings name (a fresh checker)."""
    with serving(Checker(fake_engine)) as checker:
        yield checker


def test_a_check_request_says_what_the_judge_did_in_a_header(
    client: Client, key: str, follower: Checker
) -> None:
    with chat_server(answer("supported")) as server:
        with override_settings(LLM_JUDGE_URL=server.url, LLM_JUDGE_BAND="all"):
            response = client.post(
                URL,
                json.dumps(BODY),
                content_type="application/json",
                headers={"x-goog-api-key": key},
            )
            assert response.status_code == 200
            header = response["LLM-Judge-Usage"]
            assert header.startswith(f"claims=2, calls=2, failed=0, tokens={2 * sum(TOKENS)},")
            again = client.post(
                URL,
                json.dumps(BODY),
                content_type="application/json",
                headers={"x-goog-api-key": key},
            )
        assert again["LLM-Judge-Usage"].startswith("claims=2, calls=0, failed=0, tokens=0,")
    assert len(server.requests) == 2  # the repeat was answered from the cache
    follower.forget_followed()  # the settings changed back: the checker reads them now
    plain = client.post(
        URL,
        json.dumps(BODY),
        content_type="application/json",
        headers={"x-goog-api-key": key},
    )
    assert "LLM-Judge-Usage" not in plain  # no judge set: no header


def test_a_batch_job_counts_the_judges_work_on_its_lines(
    client: Client, key: str, admin_client: Client, follower: Checker
) -> None:
    # Line 1 succeeds, line 2's request fails (its verdict stays the verifier's), and line
    # 3 is answered; each line has one claim.
    script = [answer("supported"), Step(status=500), answer("unsupported")]
    with (
        chat_server(*script) as server,
        override_settings(LLM_JUDGE_URL=server.url, LLM_JUDGE_BAND="all"),
    ):
        created = client.post(
            "/v1/batchJobs",
            jsonl(3),
            content_type="application/x-ndjson",
            headers={"x-goog-api-key": key},
        ).json()
        assert "llmJudge" not in created
        running.run_chunk(BatchChunk.objects.get().pk)
    assert len(server.requests) == 3
    job = BatchJob.objects.get()
    assert (job.llm_judge_claims, job.llm_judge_calls, job.llm_judge_failures) == (3, 3, 1)
    assert job.llm_judge_tokens == 2 * sum(TOKENS)
    resource = client.get("/v1/" + created["name"], headers={"x-goog-api-key": key}).json()
    figures: dict[str, Any] = resource["llmJudge"]
    assert {k: v for k, v in figures.items() if k != "seconds"} == {
        "claims": 3,
        "calls": 3,
        "failedCalls": 1,
        "tokens": 2 * sum(TOKENS),
    }
    assert figures["seconds"] > 0
    page = admin_client.get(f"/batch/{job.public_id}/").content.decode()
    assert (
        "LLM judge so far: 3 claims shown to it, 3 requests to its endpoint (1 failed: the"
        " verifier's verdict stands there), 100 tokens" in page
    )


def test_a_deep_reply_falls_back_on_the_api_and_on_batch_lines(
    client: Client, key: str, follower: Checker
) -> None:
    deep = Step(raw=b"[" * 200_000 + b"]" * 200_000)
    with (
        chat_server(deep) as server,
        override_settings(LLM_JUDGE_URL=server.url, LLM_JUDGE_BAND="all"),
    ):
        response = client.post(
            URL, json.dumps(BODY), content_type="application/json", headers={"x-goog-api-key": key}
        )
        assert response.status_code == 200
        notes = [c.get("llmJudge") for c in response.json()["claims"]]
        assert notes == ["fell back: bad response"] * 2
        client.post(
            "/v1/batchJobs",
            jsonl(2),
            content_type="application/x-ndjson",
            headers={"x-goog-api-key": key},
        )
        running.run_chunk(BatchChunk.objects.get().pk)
    job = BatchJob.objects.get()
    # The third bad response in a row pauses the judge: the second line's claim falls
    # back without a call.
    assert (job.llm_judge_calls, job.llm_judge_failures) == (1, 1)
    assert set(BatchLine.objects.values_list("state", flat=True)) == {BatchLine.State.DONE}
