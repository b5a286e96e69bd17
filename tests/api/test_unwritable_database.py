"""A database that cannot be written (read-only file or server, or locked): `/readyz`
says so, and a page that writes answers 503 with a page saying to try again, as the
API does, instead of a bare 500."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest
from django.contrib.auth.models import User
from django.db import OperationalError, connection
from django.test import Client

from grounding_app.active_verifier.checker import Checker

pytestmark = pytest.mark.django_db(transaction=True)


@contextmanager
def read_only() -> Iterator[None]:
    """Every write on this connection fails as on a read-only database."""
    if connection.vendor == "sqlite":
        on, off = "PRAGMA query_only = ON", "PRAGMA query_only = OFF"
    else:
        on, off = (
            "SET default_transaction_read_only = on",
            "SET default_transaction_read_only = off",
        )
    connection.ensure_connection()
    with connection.cursor() as cursor:
        cursor.execute(on)
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute(off)


@pytest.fixture
def engine_ready(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Checker, "warm_up_in_background", lambda self: None)
    monkeypatch.setattr(Checker, "is_ready", lambda self: True)


def test_readyz_is_503_while_the_database_is_read_only(client: Client, engine_ready: None) -> None:
    assert client.get("/readyz").status_code == 200
    with read_only():
        response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["error"]["status"] == "UNAVAILABLE"
    assert "database" in response.json()["error"]["message"]
    assert client.get("/readyz").status_code == 200


def test_a_page_that_cannot_write_answers_503(
    client: Client, make_user: Callable[..., User], fake_engine: object
) -> None:
    client.force_login(make_user("reviewer"))
    form = {
        "answer": "T is the capital of O.",
        "citation_threshold": "0.6",
        "fact-0-text": "T is the capital of O.",
    }
    with read_only():
        response = client.post("/reviews/new/", form)
    assert response.status_code == 503
    assert response["Retry-After"]
    page = response.content.decode()
    assert "try again" in page.lower() and "Traceback" not in page


def test_a_locked_database_answers_503_on_pages(
    client: Client, make_user: Callable[..., User], monkeypatch: pytest.MonkeyPatch
) -> None:
    client.force_login(make_user("reviewer"))

    def locked(*args: object, **kwargs: object) -> None:
        raise OperationalError("database is locked")

    monkeypatch.setattr("grounding_app.reviews.services.find_reviews", locked)
    response = client.get("/reviews/")
    assert response.status_code == 503
