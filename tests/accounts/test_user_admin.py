"""The user list's role actions: an admin who is not a superuser cannot change a
superuser's groups through them, as the change form already refuses."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from django.test import Client

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("action", ["give_annotator_role", "take_admin_role"])
def test_role_actions_skip_superusers_for_an_admin_who_is_not_one(
    make_user: Callable[..., User], action: str
) -> None:
    admin = make_user("admin", "adm")
    root = make_user("superuser", "root")
    root.groups.add(*admin.groups.all())  # root holds the admin role too
    rita = make_user("admin", "rita")
    before = set(root.groups.values_list("name", flat=True))
    client = Client()
    client.force_login(admin)
    response = client.post(
        "/admin/auth/user/", {"action": action, "_selected_action": [root.pk, rita.pk]}, follow=True
    )
    assert response.status_code == 200
    assert set(root.groups.values_list("name", flat=True)) == before
    changed = set(rita.groups.values_list("name", flat=True))
    assert changed == ({"admin", "annotator"} if action.startswith("give") else set())
    page = response.content.decode()
    assert "1 user(s)" in page and "superuser" in page


def test_a_superuser_may_change_a_superuser_with_the_actions(
    make_user: Callable[..., User],
) -> None:
    root, other = make_user("superuser", "root"), make_user("superuser", "other")
    client = Client()
    client.force_login(root)
    client.post(
        "/admin/auth/user/", {"action": "give_reviewer_role", "_selected_action": [other.pk]}
    )
    assert other.groups.filter(name="reviewer").exists()
