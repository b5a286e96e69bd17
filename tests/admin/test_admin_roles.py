"""Who may open which admin page: the admin role is enough (no staff flag), with exactly
the rights SPEC §4 gives admins; nobody below a superuser can make one; the admin's
sign-in form shares the app's failure limit."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client

from grounding_app.accounts.backends import ADMIN_PERMISSIONS
from grounding_app.retention.models import RetentionSettings

pytestmark = pytest.mark.django_db

OPEN, REFUSED, TO_LOGIN = 200, 403, 302

# page -> what the admin role gets; a superuser gets 200 everywhere (the retention
# list always redirects to its one row, so it is left out here).
PAGES = {
    "/admin/": OPEN,
    "/admin/auth/user/": OPEN,
    "/admin/auth/user/add/": OPEN,
    "/admin/auth/group/": OPEN,
    "/admin/auth/group/add/": REFUSED,
    "/admin/api/apikey/": OPEN,
    "/admin/api/apikey/add/": OPEN,
    "/admin/retention/retentionsettings/add/": OPEN,
    "/admin/retention/purge/": OPEN,
    "/admin/reviews/review/": REFUSED,
    "/admin/annotations/labelingproject/": REFUSED,
    "/admin/annotations/item/": REFUSED,
    "/admin/annotations/assignment/": REFUSED,
}


def _client(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.parametrize("path", PAGES)
@pytest.mark.parametrize("role", ["admin", "superuser", "reviewer", "annotator", "", "staff"])
def test_admin_pages_by_role(make_user: Callable[..., User], role: str, path: str) -> None:
    if role == "staff":  # staff without a role: Django's own rule, no permissions
        user = make_user("")
        user.is_staff = True
        user.save()
        expected = OPEN if path == "/admin/" else REFUSED
    elif role == "admin":
        user, expected = make_user("admin"), PAGES[path]
    elif role == "superuser":
        user, expected = make_user("superuser"), OPEN
    else:
        user, expected = make_user(role), TO_LOGIN
    response = _client(user).get(path)
    assert response.status_code == expected, (role, path)
    if expected == TO_LOGIN:
        assert response["Location"].startswith("/admin/login/")


def test_the_admin_role_holds_exactly_the_declared_permissions(
    make_user: Callable[..., User],
) -> None:
    admin = make_user("admin")
    assert not admin.is_staff and not admin.is_superuser
    assert admin.get_all_permissions() == set(ADMIN_PERMISSIONS)
    assert not admin.has_perm("reviews.delete_review")
    assert not admin.has_perm("auth.change_group")
    admin.is_active = False
    admin.save()
    assert User.objects.get(pk=admin.pk).get_all_permissions() == set()
    reviewer = make_user("reviewer")
    assert reviewer.get_all_permissions() == set()


def test_an_admin_manages_users_but_cannot_make_a_superuser(
    make_user: Callable[..., User],
) -> None:
    admin = make_user("admin", "adm")
    root = make_user("superuser", "root")
    client = _client(admin)
    admin_group = Group.objects.get(name="admin")
    response = client.post(
        f"/admin/auth/user/{admin.pk}/change/",
        {
            "username": "adm",
            "is_active": "on",
            "is_superuser": "on",
            "is_staff": "on",
            "groups": [admin_group.pk],
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    admin.refresh_from_db()
    assert not admin.is_superuser and not admin.is_staff
    # A superuser is visible to them, but not theirs to change or delete.
    assert client.get(f"/admin/auth/user/{root.pk}/change/").status_code == 200
    posted = client.post(f"/admin/auth/user/{root.pk}/change/", {"username": "pwned"})
    assert posted.status_code == 403
    assert client.post(f"/admin/auth/user/{root.pk}/delete/", {"post": "yes"}).status_code == 403
    root.refresh_from_db()
    assert root.username == "root"
    # Only role groups can be given in the change form.
    Group.objects.create(name="secret-staff")
    page = client.get(f"/admin/auth/user/{admin.pk}/change/").content.decode()
    assert "secret-staff" not in page and ">reviewer<" in page


def test_the_admin_role_signs_in_on_the_admin_form(make_user: Callable[..., User]) -> None:
    make_user("admin", "adm")
    make_user("reviewer", "rev")
    client = Client()
    refused = client.post("/admin/login/", {"username": "rev", "password": "pw-for-tests-only"})
    assert refused.status_code == 200 and "_auth_user_id" not in client.session
    response = client.post(
        "/admin/login/?next=/admin/", {"username": "adm", "password": "pw-for-tests-only"}
    )
    assert response.status_code == 302 and response["Location"] == "/admin/"
    assert client.get("/admin/").status_code == 200


def test_the_admin_sign_in_shares_the_failure_limit(
    settings: object, make_user: Callable[..., User]
) -> None:
    settings.LOGIN_RATE_LIMIT = 3  # type: ignore[attr-defined]
    settings.LOGIN_RATE_WINDOW = 300  # type: ignore[attr-defined]
    make_user("superuser", "root")
    client = Client()
    address = {"REMOTE_ADDR": "198.51.100.77"}
    wrong = {"username": "root", "password": "wrong"}
    assert client.post("/accounts/login/", wrong, **address).status_code == 200
    assert [client.post("/admin/login/", wrong, **address).status_code for _ in range(2)] == [
        200,
        200,
    ]
    right = {"username": "root", "password": "pw-for-tests-only"}
    refused = client.post("/admin/login/", right, **address)
    assert refused.status_code == 429 and refused["Retry-After"]
    assert "_auth_user_id" not in client.session
    assert client.post("/accounts/login/", right, **address).status_code == 429
    # Another address is not affected.
    assert client.post("/admin/login/", right, REMOTE_ADDR="198.51.100.78").status_code == 302


def test_retention_add_opens_the_saved_period(make_user: Callable[..., User]) -> None:
    RetentionSettings.objects.create(retention_days=7)
    client = _client(make_user("superuser"))
    response = client.get("/admin/retention/retentionsettings/add/")
    assert response.status_code == 302
    assert response["Location"] == "/admin/retention/retentionsettings/1/change/"


def test_the_403_page_names_the_reason(make_user: Callable[..., User]) -> None:
    response = _client(make_user("annotator")).get("/reviews/")
    assert response.status_code == 403
    page = response.content.decode()
    assert "needs one of the roles reviewer, admin" in page
    assert "reviewer</strong> group" not in page
