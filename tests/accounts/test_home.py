"""The home page sends each role to its own pages; the menu shows only those."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(
    ("role", "status", "target"),
    [
        ("reviewer", 302, "/reviews/"),
        ("admin", 302, "/reviews/"),
        ("superuser", 302, "/reviews/"),
        ("annotator", 302, "/annotations/"),
        ("", 403, None),
    ],
)
def test_home_by_role(client, make_user, role, status, target):
    client.force_login(make_user(role))
    response = client.get("/")
    assert response.status_code == status
    if target:
        assert response["Location"] == target


def test_anonymous_home_goes_to_sign_in(client, db):
    response = client.get("/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


def test_annotators_see_only_labeling_in_the_menu(client, make_user):
    client.force_login(make_user("annotator"))
    page = client.get("/annotations/").content.decode()
    assert 'href="/annotations/"' in page and 'href="/reviews/new/"' not in page
    client.force_login(make_user("reviewer"))
    page = client.get("/annotations/").content.decode()
    assert 'href="/annotations/"' in page and 'href="/reviews/new/"' in page
