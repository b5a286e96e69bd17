"""A strict CSP on every page, ours, the admin's and the error pages; no inline script;
htmx without eval or history cache; the widget frame keeps its own sandboxing rules."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.test import Client

from grounding_app.reviews.models import Review
from tests.reviews.conftest import fixture_text

pytestmark = pytest.mark.django_db

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"


class Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.inline_script = ""
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag == "script"

    def handle_endtag(self, tag: str) -> None:
        self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.inline_script += data.strip()


def directives(header: str) -> dict[str, list[str]]:
    parts = [part.split() for part in header.split(";") if part.strip()]
    return {part[0]: part[1:] for part in parts}


def assert_strict_page(response, ours: bool = True) -> None:
    policy = directives(response["Content-Security-Policy"])
    assert policy["object-src"] == ["'none'"]
    assert policy["base-uri"] == ["'none'"]
    assert policy["frame-ancestors"] == ["'none'"]
    assert policy["default-src"] == ["'self'"]
    assert "'unsafe-inline'" not in policy["script-src"]
    assert "'unsafe-eval'" not in policy["script-src"]
    if not response.get("Content-Type", "").startswith("text/html"):
        return
    parser = Tags()
    parser.feed(response.content.decode())
    assert parser.inline_script == ""
    for tag, attrs in parser.tags:
        assert not [name for name in attrs if name.startswith("on")], (tag, attrs)
        if tag == "script":
            assert attrs.get("src"), attrs
            if ours:
                nonce = re.search(r"'nonce-([^']+)'", " ".join(policy["script-src"]))[1]
                assert attrs.get("nonce") == nonce


@pytest.fixture
def review(make_user: Callable[..., object]) -> Review:
    client = Client()
    client.force_login(make_user("reviewer"))
    response = client.post("/reviews/import/", {"payload": fixture_text("gemini_web_search.json")})
    return Review.objects.get(public_id=response["Location"].split("/")[-2])


def test_our_pages_and_error_pages(
    client: Client, make_user: Callable[..., object], review: Review
) -> None:
    assert_strict_page(client.get("/accounts/login/"))
    client.force_login(make_user("reviewer"))
    for url in ("/reviews/", "/reviews/new/", "/reviews/import/", review.get_absolute_url()):
        response = client.get(url)
        assert response.status_code == 200, url
        assert_strict_page(response)
    missing = client.get("/reviews/00000000-0000-0000-0000-000000000000/")
    assert missing.status_code == 404
    assert_strict_page(missing)
    client.force_login(make_user("annotator"))
    forbidden = client.get("/reviews/")
    assert forbidden.status_code == 403
    assert_strict_page(forbidden)


def test_admin_pages(client: Client, make_user: Callable[..., object], review: Review) -> None:
    assert_strict_page(client.get("/admin/login/"), ours=False)
    client.force_login(make_user("superuser"))
    for url in (
        "/admin/",
        "/admin/auth/user/",
        "/admin/auth/user/add/",
        "/admin/api/apikey/add/",
        "/admin/reviews/review/",
        f"/admin/reviews/review/{review.pk}/change/",
        "/admin/retention/purge/",
    ):
        response = client.get(url)
        assert response.status_code == 200, url
        assert_strict_page(response, ours=False)


@pytest.mark.urls("tests.security.urls_boom")
def test_the_server_error_page() -> None:
    client = Client(raise_request_exception=False)
    response = client.get("/boom/")
    assert response.status_code == 500
    assert_strict_page(response)


def test_the_api_answers_under_the_same_policy(client: Client) -> None:
    response = client.post(
        "/v1/projects/p/locations/l/groundingConfigs/c:check",
        b"{}",
        content_type="application/json",
    )
    assert response.status_code == 401
    assert_strict_page(response)


def test_htmx_runs_without_eval_or_history_cache(
    client: Client, make_user: Callable[..., object]
) -> None:
    client.force_login(make_user("reviewer"))
    page = client.get("/reviews/").content.decode()
    config = json.loads(re.search(r"<meta name=\"htmx-config\" content='([^']+)'>", page)[1])
    assert config["allowEval"] is False
    assert config["allowScriptTags"] is False
    assert config["historyCacheSize"] == 0
    for template in TEMPLATES.rglob("*.html"):
        text = template.read_text()
        assert not re.search(r"\shx-on[:-]", text), template  # hx-on needs eval
        assert not re.search(r"<script(?![^>]*\ssrc=)", text), template


def test_the_widget_frame_has_its_own_rules(
    client: Client, make_user: Callable[..., object], review: Review
) -> None:
    client.force_login(make_user("reviewer"))
    response = client.get(f"/reviews/{review.public_id}/suggestions/0/0/")
    policy = directives(response["Content-Security-Policy"])
    assert policy["sandbox"] == ["allow-popups", "allow-popups-to-escape-sandbox"]
    assert policy["default-src"] == ["'none'"]
    assert policy["frame-ancestors"] == ["'self'"]  # our page frames it, nobody else
    assert policy["base-uri"] == ["'none'"]
    assert "script-src" not in policy
