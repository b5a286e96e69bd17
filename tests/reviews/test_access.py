"""Every view has exactly one access rule, and each role meets it as intended."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.contrib.auth.models import Group
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from grounding_app.reviews.models import Review
from tests.reviews.conftest import fixture_text

pytestmark = pytest.mark.django_db

ALLOWED = {"reviewer", "admin", "superuser"}
ROLES = ["anonymous", "outsider", "annotator", "reviewer", "admin", "superuser"]


def test_role_groups_are_created_by_migration() -> None:
    assert set(Group.objects.values_list("name", flat=True)) >= {"reviewer", "annotator", "admin"}


def _patterns(resolver: URLResolver, prefix: str = "") -> list[tuple[str, URLPattern]]:
    found = []
    for pattern in resolver.url_patterns:
        if isinstance(pattern, URLResolver):
            found += _patterns(pattern, prefix + str(pattern.pattern))
        else:
            found.append((prefix + str(pattern.pattern), pattern))
    return found


def test_every_page_view_declares_one_access_rule() -> None:
    ours = [
        (route, p)
        for route, p in _patterns(get_resolver())
        if route.startswith(("reviews/", "accounts/")) or route == ""
    ]
    assert len(ours) >= 10
    for route, pattern in ours:
        rule = getattr(pattern.callback, "access_rule", None)
        assert rule, f"{route} has no access rule"
        if route.startswith("reviews/"):
            assert rule == "roles: reviewer, admin", route


@pytest.fixture
def saved_review(make_user: Callable[..., object]) -> Review:
    """A Gemini review (with a widget) owned by nobody in the test."""
    client = Client()
    client.force_login(make_user("reviewer", "owner"))
    client.post("/reviews/import/", {"payload": fixture_text("gemini_web_search.json")})
    return Review.objects.get()


def _client(role: str, make_user: Callable[..., object]) -> Client:
    client = Client()
    if role != "anonymous":
        client.force_login(make_user("" if role == "outsider" else role))
    return client


VIEWS = [
    ("get", "/reviews/"),
    ("get", "/reviews/new/"),
    ("post", "/reviews/new/"),
    ("get", "/reviews/import/"),
    ("post", "/reviews/import/"),
    ("get", "/reviews/{id}/"),
    ("get", "/reviews/{id}/suggestions/0/0/"),
    ("post", "/reviews/{id}/recheck/"),
]


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize(("method", "url"), VIEWS)
def test_review_views_by_role(
    role: str, method: str, url: str, saved_review: Review, make_user: Callable[..., object]
) -> None:
    client = _client(role, make_user)
    response = getattr(client, method)(url.format(id=saved_review.public_id))
    if role == "anonymous":
        assert response.status_code == 302
        assert response["Location"].startswith("/accounts/login/?next=")
    elif role in ALLOWED:
        # Allowed in: a page, a form with errors, or a 404 for re-checking a Gemini review.
        assert response.status_code in (200, 404), response.status_code
    else:
        assert response.status_code == 403
        assert b"Not allowed" in response.content


@pytest.mark.parametrize("role", ROLES)
def test_delete_needs_the_owner_or_an_admin(
    role: str, saved_review: Review, make_user: Callable[..., object]
) -> None:
    client = _client(role, make_user)
    response = client.post(f"/reviews/{saved_review.public_id}/delete/")
    deleted = not Review.objects.filter(pk=saved_review.pk).exists()
    if role == "anonymous":
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    elif role in ("admin", "superuser"):
        assert response.status_code == 302 and response["Location"] == "/reviews/"
    else:  # another reviewer is not the owner; outsiders and annotators have no role here
        assert response.status_code == 403
    assert deleted == (role in ("admin", "superuser"))


def test_the_owner_may_delete(saved_review: Review) -> None:
    client = Client()
    client.force_login(saved_review.created_by)
    assert client.post(f"/reviews/{saved_review.public_id}/delete/").status_code == 302
    assert not Review.objects.exists()


def test_delete_is_post_only_and_csrf_protected(saved_review: Review) -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(saved_review.created_by)
    url = f"/reviews/{saved_review.public_id}/delete/"
    assert client.get(url).status_code == 405
    assert client.post(url).status_code == 403  # no CSRF token
    assert Review.objects.exists()


def test_sign_in_and_out(make_user: Callable[..., object]) -> None:
    make_user("reviewer", "lee")
    client = Client()
    page = client.get("/accounts/login/?next=/reviews/new/")
    assert page.status_code == 200 and b'name="password"' in page.content
    response = client.post(
        "/accounts/login/",
        {"username": "lee", "password": "pw-for-tests-only", "next": "/reviews/new/"},
    )
    assert response.status_code == 302 and response["Location"] == "/reviews/new/"
    assert client.get("/reviews/new/").status_code == 200
    assert client.post("/accounts/logout/").status_code == 302
    assert client.get("/reviews/").status_code == 302


def test_wrong_password_is_refused(make_user: Callable[..., object]) -> None:
    make_user("reviewer", "lee")
    response = Client().post("/accounts/login/", {"username": "lee", "password": "nope"})
    assert response.status_code == 200
    assert b"Please enter a correct username and password" in response.content
