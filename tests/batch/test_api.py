"""The batch API: the check endpoint's key, envelope and size conventions; a key sees
only its own jobs."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from grounding_app.api.models import ApiKey
from grounding_app.batch import running
from grounding_app.batch.models import BatchChunk, BatchJob
from tests.batch.conftest import jsonl

pytestmark = pytest.mark.django_db


@pytest.fixture
def key() -> str:
    return ApiKey.issue("batch-tests")[1]


def _post(client: Client, path: str, body: bytes, key: str | None) -> Any:
    headers = {"x-goog-api-key": key} if key else {}
    return client.post(path, body, content_type="application/x-ndjson", headers=headers)


def _error(response: Any, code: int, status: str) -> str:
    assert response.status_code == code
    error = response.json()["error"]
    assert (error["code"], error["status"]) == (code, status)
    return str(error["message"])


def test_create_reports_bad_lines_and_the_job_is_only_its_keys(client: Client, key: str) -> None:
    response = _post(client, "/v1/batchJobs?citationThreshold=0.7", jsonl(4, bad=(3,)), key)
    assert response.status_code == 200
    job = response.json()
    assert job["state"] == "QUEUED" and job["totalLines"] == 4
    assert job["citationThreshold"] == 0.7
    assert job["lineErrors"][0]["line"] == 3
    assert job["lineErrors"][0]["message"].startswith("line 3: not valid JSON")
    path = "/v1/" + job["name"]
    assert client.get(path, headers={"x-goog-api-key": key}).json()["failedLines"] == 1
    other = ApiKey.issue("other")[1]
    _error(client.get(path, headers={"x-goog-api-key": other}), 404, "NOT_FOUND")


def test_cancel_and_results(client: Client, key: str, fake_engine: Any) -> None:
    job = _post(client, "/v1/batchJobs", jsonl(3), key).json()
    path = "/v1/" + job["name"]
    stored = BatchJob.objects.get()
    running.run_chunk(BatchChunk.objects.get(job=stored).pk)
    results = client.get(path + "/results", headers={"x-goog-api-key": key})
    assert len(b"".join(results.streaming_content).splitlines()) == 3
    cancelled = _post(client, path + ":cancel", b"", key).json()
    assert cancelled["state"] == "DONE"  # already finished: nothing to cancel
    second = _post(client, "/v1/batchJobs", jsonl(2), key).json()
    assert _post(client, "/v1/" + second["name"] + ":cancel", b"", key).json()["state"] == (
        "CANCELLED"
    )


@pytest.mark.parametrize("threshold", ["2", "-0.1", "nan", "abc", "\u0661"])
def test_a_bad_threshold_is_invalid(client: Client, key: str, threshold: str) -> None:
    response = _post(client, f"/v1/batchJobs?citationThreshold={threshold}", jsonl(1), key)
    assert "citationThreshold" in _error(response, 400, "INVALID_ARGUMENT")


def test_errors_use_the_envelope(client: Client, key: str, settings: Any) -> None:
    _error(_post(client, "/v1/batchJobs", jsonl(1), None), 401, "UNAUTHENTICATED")
    _error(_post(client, "/v1/batchJobs", jsonl(1), "wrong"), 401, "UNAUTHENTICATED")
    _error(client.get("/v1/batchJobs", headers={"x-goog-api-key": key}), 405, "UNIMPLEMENTED")
    _error(_post(client, "/v1/batchJobs", b"\n", key), 400, "INVALID_ARGUMENT")
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 100
    _error(_post(client, "/v1/batchJobs", jsonl(5), key), 413, "INVALID_ARGUMENT")
    assert not BatchJob.objects.exists()


def test_the_rate_limit_counts_batch_calls(client: Client, key: str, settings: Any) -> None:
    settings.API_RATE_LIMIT = 1
    headers = {"x-goog-api-key": key}
    missing = "/v1/batchJobs/00000000-0000-0000-0000-000000000000"
    _error(client.get(missing, headers=headers), 404, "NOT_FOUND")
    response = client.get(missing, headers=headers)
    _error(response, 429, "RESOURCE_EXHAUSTED")
    assert int(response["Retry-After"]) > 0


def test_a_source_policy_by_name(client: Client, key: str) -> None:
    from grounding_app.policies.models import SourcePolicy

    SourcePolicy.objects.create(name="No tabloids", excluded_domains=["tabloid.example"])
    ok = _post(client, "/v1/batchJobs?sourcePolicy=No%20tabloids", jsonl(1), key)
    assert ok.json()["sourcePolicy"] == "No tabloids"
    unknown = _post(client, "/v1/batchJobs?sourcePolicy=Nope", jsonl(1), key)
    assert "sourcePolicy" in _error(unknown, 400, "INVALID_ARGUMENT")


def test_a_key_may_have_only_so_many_lines_waiting(client: Client, key: str, settings) -> None:
    settings.BATCH_KEY_WAITING_LINES = 5
    assert _post(client, "/v1/batchJobs", jsonl(4), key).status_code == 200
    refused = _post(client, "/v1/batchJobs", jsonl(2), key)
    message = _error(refused, 429, "RESOURCE_EXHAUSTED")
    assert "4 lines waiting" in message and "at most 5" in message
    assert refused["Retry-After"]
    assert _post(client, "/v1/batchJobs", jsonl(2), ApiKey.issue("other")[1]).status_code == 200
    running.cancel(BatchJob.objects.filter(total=4).get())  # cancelled lines wait no more
    assert _post(client, "/v1/batchJobs", jsonl(5), key).status_code == 200


def test_a_retried_upload_with_a_request_id_returns_the_first_job(client: Client, key: str) -> None:
    first = _post(client, "/v1/batchJobs?requestId=upload-7", jsonl(3), key).json()
    again = _post(client, "/v1/batchJobs?requestId=upload-7", jsonl(3), key).json()
    assert again["name"] == first["name"] and BatchJob.objects.count() == 1
    headers = {"x-goog-api-key": key, "Idempotency-Key": "upload-7"}
    by_header = client.post(
        "/v1/batchJobs", jsonl(3), content_type="application/x-ndjson", headers=headers
    )
    assert by_header.json()["name"] == first["name"]
    other = ApiKey.issue("other")[1]  # a request id is the key's own
    assert (
        _post(client, "/v1/batchJobs?requestId=upload-7", jsonl(3), other).json()["name"]
        != (first["name"])
    )
    assert BatchJob.objects.count() == 2
    _error(_post(client, "/v1/batchJobs?requestId=a%20b", jsonl(1), key), 400, "INVALID_ARGUMENT")


def test_a_concurrent_retry_loses_to_the_first(
    client: Client, key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = _post(client, "/v1/batchJobs?requestId=r1", jsonl(2), key).json()
    # The retry checked before the first committed: the constraint stops it.
    monkeypatch.setattr("grounding_app.batch.api._own_request", _second_look())
    again = _post(client, "/v1/batchJobs?requestId=r1", jsonl(2), key)
    assert again.status_code == 200 and again.json()["name"] == first["name"]
    assert BatchJob.objects.count() == 1


def _second_look() -> Any:
    from grounding_app.batch import api

    real, calls = api._own_request, []

    def look(api_key: ApiKey, request_id: str) -> BatchJob | None:
        calls.append(request_id)
        return None if len(calls) == 1 else real(api_key, request_id)

    return look
