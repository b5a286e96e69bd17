"""The JSON API over Django's test client: one test per error, with a fake engine."""

from __future__ import annotations

import io
import json
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from grounding_app.active_verifier.checker import Checker
from grounding_app.api.models import ApiKey
from grounding_app.engine import CheckRequest, CheckResponse, CitedChunk, Claim
from tests.conftest import check_with

URL = "/v1/projects/p/locations/global/groundingConfigs/default_grounding_config:check"
BODY = {
    "answerCandidate": "Here is what I found. T is the capital of O.",
    "facts": [{"factText": "T is the capital of O", "attributes": {"author": "Encyclopedia"}}],
}

pytestmark = pytest.mark.django_db


@pytest.fixture
def seen(monkeypatch) -> list[CheckRequest]:
    """Replace the engine by a fake that records requests and supports claim 2 by fact 0."""
    requests: list[CheckRequest] = []

    def fake_check(request: CheckRequest) -> CheckResponse:
        requests.append(request)
        return CheckResponse(
            claims=(Claim(0, 21, "Here is what I found.", False), Claim(22, 44, "T.", True, (0,))),
            cited_chunks=(CitedChunk(request.facts[0].text, 0, request.facts[0].attributes),),
            support_score=0.9,
        )

    check_with(monkeypatch, fake_check)
    return requests


@pytest.fixture
def key() -> str:
    return ApiKey.issue("tests")[1]


def post(client, body: object = BODY, key: str | None = None, headers: dict | None = None):
    headers = headers or ({"x-goog-api-key": key} if key else {})
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    return client.post(URL, raw, content_type="application/json", headers=headers)


def assert_error(response, code: int, status: str, *words: str) -> None:
    assert response.status_code == code
    error = response.json()["error"]
    assert error["code"] == code
    assert error["status"] == status
    for word in words:
        assert word in error["message"]


def test_check_ok(client, key, seen):
    response = post(client, key=key)
    assert response.status_code == 200
    assert response.json() == {
        "supportScore": 0.9,
        "citedChunks": [
            {
                "chunkText": "T is the capital of O",
                "source": "0",
                "sourceMetadata": {"author": "Encyclopedia"},
            }
        ],
        "citedFacts": [{"chunkText": "T is the capital of O"}],
        "claims": [
            {
                "startPos": 0,
                "endPos": 21,
                "claimText": "Here is what I found.",
                "groundingCheckRequired": False,
            },
            {
                "startPos": 22,
                "endPos": 44,
                "claimText": "T.",
                "citationIndices": [0],
                "groundingCheckRequired": True,
            },
        ],
    }
    assert seen[0].answer == BODY["answerCandidate"]


def test_401_missing_key(client, seen):
    assert_error(post(client), 401, "UNAUTHENTICATED", "Missing API key")
    assert not seen


def test_401_wrong_key(client, key, seen):
    assert_error(post(client, key=key + "x"), 401, "UNAUTHENTICATED", "not valid")
    assert not seen


def test_401_revoked_key(client, seen):
    api_key, raw = ApiKey.issue("revoked")
    api_key.revoked_at = timezone.now()
    api_key.save()
    assert_error(post(client, key=raw), 401, "UNAUTHENTICATED")


def test_bearer_token_accepted(client, key, seen):
    response = post(client, headers={"Authorization": f"Bearer {key}"})
    assert response.status_code == 200


def test_key_query_parameter_accepted(client, key, seen):
    response = client.post(f"{URL}?key={key}", json.dumps(BODY), content_type="application/json")
    assert response.status_code == 200


def test_400_bad_json(client, key, seen):
    assert_error(post(client, b'{"answerCandidate": ', key=key), 400, "INVALID_ARGUMENT", "JSON")
    assert not seen


def test_400_body_not_utf8(client, key, seen):
    body = b'{"answerCandidate": "caf\xe9"}'
    assert_error(post(client, body, key=key), 400, "INVALID_ARGUMENT", "UTF-8")


def test_400_non_object_json(client, key, seen):
    assert_error(post(client, [BODY], key=key), 400, "INVALID_ARGUMENT", "expected an object")


def test_400_unknown_field(client, key, seen):
    assert_error(post(client, {**BODY, "answer": "x"}, key=key), 400, "INVALID_ARGUMENT", "answer")


def test_400_bad_type(client, key, seen):
    body = {**BODY, "facts": [{"factText": 7}]}
    assert_error(post(client, body, key=key), 400, "INVALID_ARGUMENT", "facts[0].factText")


def test_400_threshold_outside_unit_interval(client, key, seen):
    body = {**BODY, "groundingSpec": {"citationThreshold": "1.5"}}
    assert_error(
        post(client, body, key=key), 400, "INVALID_ARGUMENT", "groundingSpec.citationThreshold"
    )


def test_400_too_many_facts(client, key, seen):
    body = {**BODY, "facts": BODY["facts"] * 201}
    assert_error(post(client, body, key=key), 400, "INVALID_ARGUMENT", "facts", "200")


def test_400_fact_too_long(client, key, seen):
    body = {**BODY, "facts": [{"factText": "x" * 10_001}]}
    assert_error(post(client, body, key=key), 400, "INVALID_ARGUMENT", "facts[0].factText")


def test_400_answer_too_long(client, key, seen):
    body = {**BODY, "answerCandidate": "word " * 4097}
    assert_error(post(client, body, key=key), 400, "INVALID_ARGUMENT", "answerCandidate", "4096")


def test_400_answer_over_the_byte_limit(client, key, seen):
    """Issue 10 item 9: 2,048 tokens, but 14.3 MB; under the 16 MiB body limit."""
    body = {**BODY, "answerCandidate": " ".join(["a" * 7_000] * 2_048)}
    response = post(client, body, key=key)
    assert_error(response, 400, "INVALID_ARGUMENT", "answerCandidate", "65536 bytes")
    assert not seen


def test_413_body_over_16_mib(client, key, seen):
    body = b" " * (16 * 1024 * 1024 + 1)
    assert_error(post(client, body, key=key), 413, "INVALID_ARGUMENT", "16777216")


def test_405_get_on_check(client, key):
    response = client.get(URL, headers={"x-goog-api-key": key})
    assert_error(response, 405, "UNIMPLEMENTED", "POST")
    assert response["Allow"] == "POST"


def test_404_unknown_path(client):
    response = client.post("/v1/projects/p/locations/global/groundingConfigs/c:nope")
    assert_error(response, 404, "NOT_FOUND")


def test_500_engine_failure(client, key, monkeypatch):
    def broken(request: CheckRequest) -> CheckResponse:
        raise RuntimeError("boom")

    check_with(monkeypatch, broken)
    assert_error(post(client, key=key), 500, "INTERNAL")


def test_healthz(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_readyz_503_then_200(client, monkeypatch):
    warm_ups: list[bool] = []
    ready = False
    monkeypatch.setattr(Checker, "warm_up_in_background", lambda self: warm_ups.append(True))
    monkeypatch.setattr(Checker, "is_ready", lambda self: ready)
    assert_error(client.get("/readyz"), 503, "UNAVAILABLE")
    ready = True
    response = client.get("/readyz")
    assert response.status_code == 200
    assert response.json() == {"status": "ready"}
    assert len(warm_ups) == 2


def test_create_api_key_command_prints_a_working_key():
    out, err = io.StringIO(), io.StringIO()
    call_command("create_api_key", "chatbot", stdout=out, stderr=err)
    raw = out.getvalue().split()[-1]
    api_key = ApiKey.authenticate(raw)
    assert api_key is not None and api_key.name == "chatbot"
    assert "only once" in err.getvalue()
    assert raw not in err.getvalue()


def test_key_is_stored_hashed_and_use_noted_once_a_minute():
    api_key, raw = ApiKey.issue("x")
    assert raw not in (api_key.key_hash, api_key.prefix) and raw.startswith(api_key.prefix)
    first = ApiKey.authenticate(raw).last_used_at
    assert ApiKey.authenticate(raw).last_used_at == first
    ApiKey.objects.filter(pk=api_key.pk).update(last_used_at=first - timedelta(minutes=2))
    assert ApiKey.authenticate(raw).last_used_at > first
    assert ApiKey.authenticate("") is None
    assert ApiKey.authenticate("x" * 1000) is None


def test_admin_creates_and_revokes_keys(admin_client):
    add_page = admin_client.get("/admin/api/apikey/add/").content.decode()
    assert 'name="name"' in add_page and "key_hash" not in add_page
    response = admin_client.post("/admin/api/apikey/add/", {"name": "bot"}, follow=True)
    api_key = ApiKey.objects.get(name="bot")
    change_page = admin_client.get(f"/admin/api/apikey/{api_key.pk}/change/").content.decode()
    assert api_key.prefix in change_page and api_key.key_hash not in change_page
    assert admin_client.get("/admin/api/apikey/?q=bot").status_code == 200
    shown = [str(message) for message in response.context["messages"]]
    raw = next(word for text in shown for word in text.split() if word.startswith("gwk_"))
    assert ApiKey.authenticate(raw) == api_key
    admin_client.post(
        "/admin/api/apikey/",
        {"action": "revoke", "_selected_action": [api_key.pk]},
    )
    assert ApiKey.authenticate(raw) is None
