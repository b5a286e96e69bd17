"""How much one review import may hold (issue 25 item 13): an answer over the bound is
refused with a message that names the bound, and the pasted JSON is kept in the form,
so nothing the user typed is lost."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from grounding_app.formats.imports import MAX_IMPORT_ANSWER_BYTES
from grounding_app.reviews.models import Review

pytestmark = pytest.mark.django_db


def _agent_output(size: int) -> str:
    return json.dumps([{"text": "x" * size}])


@pytest.fixture
def reviewer(make_user: Callable[..., object]) -> Client:
    client = Client()
    client.force_login(make_user("reviewer"))
    return client


@pytest.mark.parametrize("upload", [False, True])
def test_an_answer_over_the_bound_is_refused_and_the_payload_kept(
    reviewer: Client, upload: bool
) -> None:
    payload = _agent_output(MAX_IMPORT_ANSWER_BYTES + 1)
    if upload:
        data = {"file": SimpleUploadedFile("big.json", payload.encode())}
    else:
        data = {"payload": payload}
    response = reviewer.post("/reviews/import/", data)
    page = response.content.decode()
    assert response.status_code == 200
    assert f"at most {MAX_IMPORT_ANSWER_BYTES:,} bytes (256 KiB)" in page
    assert not Review.objects.exists()
    if not upload:
        assert "x" * MAX_IMPORT_ANSWER_BYTES in page  # still in the box


def test_an_answer_at_the_bound_is_imported(reviewer: Client) -> None:
    response = reviewer.post(
        "/reviews/import/", {"payload": _agent_output(MAX_IMPORT_ANSWER_BYTES)}
    )
    assert response.status_code == 302
    assert Review.objects.count() == 1
