"""Fixtures for the review pages: signed-in clients and imported fixture payloads."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from django.test import Client

from grounding_app.reviews.models import Review

IMPORTS = Path(__file__).resolve().parent.parent / "fixtures" / "imports"


def fixture_text(name: str) -> str:
    return (IMPORTS / name).read_text(encoding="utf-8")


@pytest.fixture
def reviewer(make_user: Callable[..., object]) -> object:
    return make_user("reviewer", "rita")


@pytest.fixture
def reviewer_client(client: Client, reviewer: object) -> Client:
    client.force_login(reviewer)
    return client


@pytest.fixture
def import_payload(reviewer_client: Client) -> Callable[[str], Review]:
    """Import a payload (JSON text) through the page and return the saved review."""

    def run(payload: str) -> Review:
        response = reviewer_client.post("/reviews/import/", {"payload": payload})
        assert response.status_code == 302, response.content.decode()[-2000:]
        return Review.objects.get(public_id=response["Location"].split("/")[-2])

    return run
