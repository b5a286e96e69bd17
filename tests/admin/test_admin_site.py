"""The admin covers what SPEC §4 gives admins: users and roles, API keys (create, revoke,
last used), the retention period and the purge history."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client

from grounding_app.api.models import ApiKey

pytestmark = pytest.mark.django_db

URL = "/v1/projects/p/locations/global/groundingConfigs/default_grounding_config:check"


@pytest.fixture
def admin_client(client: Client, make_user: Callable[..., object]) -> Client:
    client.force_login(make_user("superuser", "root"))
    return client


def test_the_index_lists_every_section(admin_client: Client) -> None:
    page = admin_client.get("/admin/").content.decode()
    for link in (
        "/admin/auth/user/",
        "/admin/auth/group/",
        "/admin/api/apikey/",
        "/admin/retention/retentionsettings/",
        "/admin/retention/purge/",
        "/admin/reviews/review/",
    ):
        assert f'href="{link}"' in page, link


def test_roles_show_in_the_user_list_and_change_with_actions(
    admin_client: Client, make_user: Callable[..., object]
) -> None:
    rita = make_user("reviewer", "rita")
    ana = make_user("", "ana")
    listing = admin_client.get("/admin/auth/user/").content.decode()
    rows = {
        name: row
        for name, row in re.findall(r">(rita|ana|root)</a>.*?(<td.*?)</tr>", listing, re.S)
    }
    assert "reviewer" in rows["rita"]
    assert "admin (superuser)" in rows["root"]
    assert "—" in rows["ana"]

    response = admin_client.post(
        "/admin/auth/user/",
        {"action": "give_annotator_role", "_selected_action": [rita.pk, ana.pk]},
    )
    assert response.status_code == 302
    assert set(
        User.objects.filter(groups__name="annotator").values_list("username", flat=True)
    ) == {"rita", "ana"}
    admin_client.post(
        "/admin/auth/user/", {"action": "take_reviewer_role", "_selected_action": [rita.pk]}
    )
    assert not rita.groups.filter(name="reviewer").exists()
    annotators = Group.objects.get(name="annotator").pk
    filtered = admin_client.get(f"/admin/auth/user/?groups__id__exact={annotators}")
    filtered = filtered.content.decode()
    assert ">ana</a>" in filtered and ">root</a>" not in filtered


def test_api_keys_are_created_shown_once_revoked_and_show_their_last_use(
    admin_client: Client, client: Client, fake_engine: object
) -> None:
    created = admin_client.post("/admin/api/apikey/add/", {"name": "chatbot"}, follow=True)
    raw = re.search(r"(gwk_[A-Za-z0-9_-]{40,})", created.content.decode())[1]
    key = ApiKey.objects.get(name="chatbot")
    assert key.last_used_at is None and raw not in key.key_hash

    api = Client()
    body = '{"answerCandidate": "T.", "facts": [{"factText": "T"}]}'
    assert (
        api.post(URL, body, "application/json", headers={"x-goog-api-key": raw}).status_code == 200
    )
    listing = admin_client.get("/admin/api/apikey/").content.decode()
    key.refresh_from_db()
    assert key.last_used_at is not None
    assert raw not in listing and key.prefix in listing

    admin_client.post("/admin/api/apikey/", {"action": "revoke", "_selected_action": [key.pk]})
    key.refresh_from_db()
    assert key.revoked_at is not None
    assert (
        api.post(URL, body, "application/json", headers={"x-goog-api-key": raw}).status_code == 401
    )


def test_retention_period_and_history_are_admin_pages(admin_client: Client) -> None:
    settings_page = admin_client.get("/admin/retention/retentionsettings/", follow=True)
    text = settings_page.content.decode()
    assert 'name="retention_days"' in text and 'value="30"' in text
    assert "Projects with their own period" in text
    admin_client.post("/admin/retention/retentionsettings/add/", {"retention_days": "45"})
    # A second "add" opens the saved period rather than a 403 page.
    assert admin_client.get("/admin/retention/retentionsettings/add/").status_code == 302
    changed = admin_client.get("/admin/retention/retentionsettings/", follow=True)
    assert 'value="45"' in changed.content.decode()
    assert admin_client.get("/admin/retention/purge/").status_code == 200


def test_other_roles_cannot_open_the_admin(
    client: Client, make_user: Callable[..., object]
) -> None:
    client.force_login(make_user("reviewer"))
    assert client.get("/admin/retention/retentionsettings/").status_code == 302  # to login
