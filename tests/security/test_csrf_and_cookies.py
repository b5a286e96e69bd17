"""CSRF on every form and htmx request; secure, HttpOnly cookies outside debug."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from django.test import Client

from grounding_app.engine import CheckRequest, Fact
from grounding_app.reviews import services
from grounding_app.reviews.models import Review

pytestmark = pytest.mark.django_db

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"
REQUEST = (
    '{"answerCandidate": "T is the capital of O.",'
    ' "facts": [{"factText": "T is the capital of O"}]}'
)
TOKEN_FIELD = re.compile(
    r'\{% csrf_token %\}|name="csrfmiddlewaretoken" value="\{\{ csrf_token \}\}"'
)


def test_every_post_form_in_the_templates_carries_the_token() -> None:
    forms = 0
    for template in TEMPLATES.rglob("*.html"):
        for form in re.findall(r"<form\b.*?</form>", template.read_text(), re.S):
            if re.search(r'method="post"', form, re.I):
                forms += 1
                assert TOKEN_FIELD.search(form), template
    assert forms >= 5


@pytest.fixture
def csrf_client(make_user: Callable[..., object], fake_engine) -> Client:
    client = Client(enforce_csrf_checks=True)
    client.force_login(make_user("reviewer"))
    return client


def _token_from_page(client: Client) -> str:
    page = client.get("/reviews/new/").content.decode()
    return re.search(r"hx-headers='\{\"X-CSRFToken\": \"([^\"]+)\"\}'", page)[1]


def test_posts_without_the_token_are_refused(csrf_client: Client) -> None:
    user = csrf_client.get("/reviews/").wsgi_request.user
    request = CheckRequest("T is the capital of O.", (Fact("T is the capital of O", {}),))
    review_url = services.check_and_save(user, request).get_absolute_url()
    for url, data in (
        ("/reviews/new/", {"answer": "T.", "citation_threshold": "0.6", "facts_json": "[]"}),
        ("/reviews/import/", {"payload": REQUEST}),
        (f"{review_url}recheck/", {}),
        (f"{review_url}delete/", {}),
        ("/accounts/logout/", {}),
    ):
        assert csrf_client.post(url, data).status_code == 403, url
        assert csrf_client.post(url, data, headers={"HX-Request": "true"}).status_code == 403
    assert (
        Client(enforce_csrf_checks=True)
        .post("/accounts/login/", {"username": "x", "password": "y"})
        .status_code
        == 403
    )


def test_htmx_requests_send_the_token_from_the_page(csrf_client: Client) -> None:
    token = _token_from_page(csrf_client)
    response = csrf_client.post(
        "/reviews/import/",
        {"payload": REQUEST},
        headers={"HX-Request": "true", "X-CSRFToken": token},
    )
    assert response.status_code == 200
    assert Review.objects.count() == 1


def test_cookies_are_secure_and_http_only_outside_debug(
    client: Client, make_user: Callable[..., object], settings
) -> None:
    assert settings.DEBUG is False
    make_user("reviewer", "carla")
    page = client.get("/accounts/login/")
    csrf = page.cookies["csrftoken"]
    assert csrf["secure"] and csrf["httponly"] and csrf["samesite"] == "Lax"
    response = client.post(
        "/accounts/login/", {"username": "carla", "password": "pw-for-tests-only"}
    )
    assert response.status_code == 302
    session = response.cookies["sessionid"]
    assert session["secure"] and session["httponly"] and session["samesite"] == "Lax"
