"""Issue 10 item 6: every API error, whatever its cause, is Google's JSON envelope."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from datetime import timedelta

import pytest
from django.conf import settings
from django.db.models.sql.compiler import SQLUpdateCompiler
from django.db.utils import OperationalError
from django.http import HttpRequest, HttpResponseBase
from django.test import Client
from django.utils import timezone

from grounding_app.api.models import ApiKey
from grounding_app.engine import GroundingEngine

URL = "/v1/projects/p/locations/global/groundingConfigs/default_grounding_config:check"
BODY = json.dumps(
    {"answerCandidate": "T is the capital of O.", "facts": [{"factText": "T is the capital of O"}]}
)
MIDDLEWARE = "grounding_app.api.middleware.ApiErrorMiddleware"
METHODS = ("get", "post", "put", "patch", "delete", "options", "head")

pytestmark = pytest.mark.django_db


@pytest.fixture
def plain_client() -> Client:
    """A client that returns what the server answered instead of re-raising its errors."""
    return Client(raise_request_exception=False)


def post(client: Client, key: str, url: str = URL):
    return client.post(url, BODY, content_type="application/json", headers={"x-goog-api-key": key})


def assert_envelope(response, code: int, status: str) -> dict:
    assert response.status_code == code
    assert response["Content-Type"] == "application/json"
    error = response.json()["error"]
    assert (error["code"], error["status"]) == (code, status)
    return error


def locked(*args: object, **kwargs: object) -> None:
    raise OperationalError("database is locked")


def test_the_middleware_wraps_every_middleware_that_can_answer_an_error() -> None:
    """Inside SecurityMiddleware (its answers keep the security headers), outside the rest."""
    middleware = list(settings.MIDDLEWARE)
    assert MIDDLEWARE in middleware, "add the API error middleware to settings.MIDDLEWARE"
    before = set(middleware[: middleware.index(MIDDLEWARE)])
    assert "django.middleware.security.SecurityMiddleware" in before
    assert before <= {
        "django.middleware.security.SecurityMiddleware",
        "whitenoise.middleware.WhiteNoiseMiddleware",
    }


def test_a_locked_database_while_authenticating_is_503_unavailable(
    plain_client: Client, monkeypatch, caplog
) -> None:
    key = ApiKey.issue("k")[1]
    monkeypatch.setattr(ApiKey, "authenticate", locked)
    with caplog.at_level(logging.ERROR):
        error = assert_envelope(post(plain_client, key), 503, "UNAVAILABLE")
    assert "locked" not in error["message"]  # no internals on the wire
    assert any("database is locked" in record.exc_text for record in caplog.records)


def test_a_crash_in_an_api_view_is_500_internal_and_logged(
    plain_client: Client, monkeypatch, caplog
) -> None:
    def crash(raw: str) -> None:
        raise RuntimeError("a bug")

    key = ApiKey.issue("k")[1]
    monkeypatch.setattr(ApiKey, "authenticate", crash)
    with caplog.at_level(logging.ERROR):
        error = assert_envelope(post(plain_client, key), 500, "INTERNAL")
    assert "a bug" not in error["message"]
    assert any("RuntimeError: a bug" in (record.exc_text or "") for record in caplog.records)


def test_noting_a_key_s_use_is_best_effort(
    client: Client, fake_engine: GroundingEngine, monkeypatch, caplog
) -> None:
    """A locked database during the last_used_at UPDATE fails neither the request nor
    the caller's transaction; a later request notes the use."""
    api_key, raw = ApiKey.issue("k")
    stale = timezone.now() - timedelta(hours=1)
    ApiKey.objects.filter(pk=api_key.pk).update(last_used_at=stale)
    with monkeypatch.context() as patch, caplog.at_level(logging.WARNING):
        patch.setattr(SQLUpdateCompiler, "execute_sql", locked)
        assert post(client, raw).status_code == 200
    assert any("last_used_at" in record.getMessage() for record in caplog.records)
    assert ApiKey.objects.get(pk=api_key.pk).last_used_at == stale
    assert post(client, raw).status_code == 200
    assert ApiKey.objects.get(pk=api_key.pk).last_used_at > stale


API_PATHS = (
    "/v1",
    "/v1/",
    "/v1/anything",
    "/v1/projects/p/locations/global/groundingConfigs/c:nope",
    f"{URL}/",
    "/V1/projects/p/locations/global/groundingConfigs/default_grounding_config:check",
    "/v1beta/projects/p/locations/global/groundingConfigs/default_grounding_config:check",
    "/v1alpha/projects/p/locations/global/groundingConfigs/default_grounding_config:check",
    "/v1beta",
    "/V1BETA/x",
    "/v1beta1/x",
    "/v2/x",
)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("path", API_PATHS)
def test_unknown_api_paths_are_404_envelopes_for_every_method(
    client: Client, path: str, method: str
) -> None:
    response = getattr(client, method)(path, headers={"x-goog-api-key": "gwk_x"})
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    if method != "head":
        error = response.json()["error"]
        assert (error["code"], error["status"]) == (404, "NOT_FOUND")
        assert path in error["message"]


def test_a_bad_host_on_an_api_path_is_a_400_envelope(client: Client) -> None:
    """DisallowedHost is raised in CommonMiddleware, before any view runs."""
    response = client.post(URL, BODY, content_type="application/json", HTTP_HOST="evil.example")
    assert_envelope(response, 400, "INVALID_ARGUMENT")


def test_too_many_query_fields_is_a_400_envelope(client: Client) -> None:
    """Django refuses them (TooManyFieldsSent) when the view first reads request.GET."""
    query = "&".join(f"f{i}=x" for i in range(settings.DATA_UPLOAD_MAX_NUMBER_FIELDS + 1))
    response = client.post(f"{URL}?{query}", BODY, content_type="application/json")
    assert_envelope(response, 400, "INVALID_ARGUMENT")


class CrashingMiddleware:
    """Fails before any view runs: Django answers its 500 page, not a view."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        raise RuntimeError("a bug in a middleware")


def test_a_crash_outside_the_view_is_a_500_envelope(plain_client: Client, settings) -> None:
    settings.MIDDLEWARE = [*settings.MIDDLEWARE, f"{__name__}.CrashingMiddleware"]
    response = plain_client.post(URL, BODY, content_type="application/json")
    error = assert_envelope(response, 500, "INTERNAL")
    assert "a bug" not in error["message"]


@pytest.mark.urls("tests.security.urls_boom")
@pytest.mark.parametrize(
    ("path", "code"),
    [
        ("/boom/", 500),
        ("/nowhere/", 404),
        ("/v1x", 404),
        ("/version/1", 404),
        ("/vbeta/x", 404),
        ("/v\u0661/x", 404),  # an Arabic-Indic one is not a version number
    ],
)
def test_pages_keep_their_html_errors(plain_client: Client, path: str, code: int) -> None:
    response = plain_client.get(path)
    assert response.status_code == code
    assert response["Content-Type"].startswith("text/html")
