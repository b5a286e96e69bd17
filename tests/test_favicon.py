"""/favicon.ico, which browsers ask for whatever the page links, is served (issue 32:
it was a 404 in every server log)."""

from __future__ import annotations

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def test_the_favicon_is_served_to_anyone(client: Client) -> None:
    response = client.get("/favicon.ico")
    assert response.status_code == 200
    assert response["Content-Type"] == "image/svg+xml"
    assert b"<svg" in b"".join(response.streaming_content)
    assert "max-age=" in response["Cache-Control"]
