"""What a signed-in person (or an API key) gets is never stored by a browser or a proxy:
`Cache-Control: private, no-store` on pages, exports and API answers alike."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from django.test import Client

from grounding_app.api.models import ApiKey

pytestmark = pytest.mark.django_db


def _directives(response: object) -> set[str]:
    value = response.get("Cache-Control", "")  # type: ignore[attr-defined]
    return {part.strip() for part in value.split(",") if part.strip()}


@pytest.mark.parametrize("path", ["/reviews/", "/reviews/export.csv", "/reviews/export.jsonl"])
def test_signed_in_pages_and_exports_are_not_stored(
    client: Client, make_user: Callable[..., User], path: str
) -> None:
    client.force_login(make_user("reviewer"))
    response = client.get(path)
    assert response.status_code == 200
    assert {"private", "no-store"} <= _directives(response)


def test_api_answers_to_a_key_are_not_stored(client: Client) -> None:
    key = ApiKey.issue("cache")[1]
    missing = "/v1/batchJobs/00000000-0000-0000-0000-000000000000"
    response = client.get(missing, headers={"x-goog-api-key": key})
    assert {"private", "no-store"} <= _directives(response)


def test_anonymous_answers_are_left_alone(client: Client) -> None:
    assert "no-store" not in _directives(client.get("/healthz"))
