"""Hostile bodies over HTTP, with the fake engine: the API answers in Google's envelope
and the pages with a form error, never with a 500."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grounding_app.api.models import ApiKey
from tests.security.strategies import VALID, VALID_REQUEST, escaped, json_values, mutated

pytestmark = pytest.mark.django_db

URL = "/v1/projects/p/locations/global/groundingConfigs/default_grounding_config:check"
HTTP_FUZZ = settings(
    max_examples=100,
    deadline=10_000,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
bodies = st.one_of(
    st.binary(max_size=300),
    json_values.map(escaped).map(str.encode),
    mutated([VALID_REQUEST]).map(escaped).map(str.encode),
)


@pytest.fixture
def api_key(fake_engine: Any, settings: Any) -> str:
    settings.API_RATE_LIMIT = 0
    return ApiKey.issue("fuzz")[1]


@pytest.fixture
def reviewer_client(client: Client, make_user: Callable[..., object], fake_engine: Any) -> Client:
    client.force_login(make_user("reviewer"))
    return client


@HTTP_FUZZ
@given(body=bodies, content_type=st.sampled_from(["application/json", "text/plain", "", "x/y"]))
def test_the_api(client: Client, api_key: str, body: bytes, content_type: str) -> None:
    response = client.post(
        URL, body, content_type=content_type, headers={"x-goog-api-key": api_key}
    )
    assert response.status_code in (200, 400), response.content[:500]
    if response.status_code == 400:
        error = response.json()["error"]
        assert error["code"] == 400 and error["status"] == "INVALID_ARGUMENT"


@HTTP_FUZZ
@given(
    payload=st.one_of(st.text(max_size=300), mutated(VALID).map(escaped), json_values.map(escaped)),
    as_file=st.booleans(),
    htmx=st.booleans(),
)
def test_the_import_page(reviewer_client: Client, payload: str, as_file: bool, htmx: bool) -> None:
    data: dict[str, Any] = (
        {"file": SimpleUploadedFile("p.json", payload.encode("utf-8", "surrogatepass"))}
        if as_file
        else {"payload": payload}
    )
    headers = {"HX-Request": "true"} if htmx else {}
    response = reviewer_client.post("/reviews/import/", data, headers=headers)
    assert response.status_code in (200, 302), response.content[:500]


@HTTP_FUZZ
@given(
    answer=st.text(max_size=300),
    threshold=st.one_of(st.text(max_size=8), st.floats().map(str)),
    facts_json=st.one_of(st.text(max_size=200), mutated([VALID_REQUEST["facts"]]).map(escaped)),
    rows=st.dictionaries(
        st.from_regex(r"fact-\d{1,5}-(text|key-\d{1,4}|value-\d{1,4})", fullmatch=True),
        st.text(max_size=30),
        max_size=8,
    ),
)
def test_the_new_review_page(
    reviewer_client: Client, answer: str, threshold: str, facts_json: str, rows: dict
) -> None:
    data = {"answer": answer, "citation_threshold": threshold, "facts_json": facts_json, **rows}
    response = reviewer_client.post("/reviews/new/", data)
    assert response.status_code in (200, 302), response.content[:500]
    if response.status_code == 302:
        assert reviewer_client.get(response["Location"]).status_code == 200


def test_a_valid_request_still_passes(client: Client, api_key: str) -> None:
    response = client.post(
        URL, json.dumps(VALID_REQUEST), "application/json", headers={"x-goog-api-key": api_key}
    )
    assert response.status_code == 200
