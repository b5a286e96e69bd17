"""One ownership rule (issue 32, item 14): what a person made is changed, cancelled or
deleted by them or an admin. A second reviewer gets 403 and nothing changes, for batch
jobs (the uploader's, an API key's, a trace source's rolling job), source policies and
reviews; the Connect page lists a reviewer's own API keys only, an admin's all with
their owners."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from grounding_app.accounts.roles import may_change
from grounding_app.api.models import ApiKey
from grounding_app.batch import intake as batch_intake
from grounding_app.batch.models import BatchJob
from grounding_app.engine import GroundingEngine
from grounding_app.policies.models import SourcePolicy
from tests.batch.conftest import jsonl

pytestmark = pytest.mark.django_db


@pytest.fixture
def people(make_user: Callable[..., Any]) -> dict[str, Any]:
    return {
        "owner": make_user("reviewer", "olivia"),
        "other": make_user("reviewer", "oscar"),
        "admin": make_user("admin", "ada"),
    }


def client_of(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_the_rule(people: dict[str, Any]) -> None:
    owner, other, admin = people["owner"], people["other"], people["admin"]
    assert may_change(owner, owner.pk) and may_change(admin, owner.pk)
    assert not may_change(other, owner.pk)
    assert may_change(admin, None) and not may_change(owner, None)


def _job(owner: Any, api_key: ApiKey | None = None) -> BatchJob:
    user = None if api_key else owner
    return batch_intake.create_job(jsonl(3), user=user, api_key=api_key, send=False)


@pytest.mark.parametrize("made_by", ["upload", "api key"])
def test_only_the_owner_or_an_admin_cancels_a_job(
    people: dict[str, Any], fake_engine: GroundingEngine, made_by: str
) -> None:
    key = ApiKey.issue("pipeline", created_by=people["owner"])[0] if made_by == "api key" else None
    jobs = [_job(people["owner"], key) for _ in range(2)]
    url = f"/batch/{jobs[0].public_id}/cancel/"
    assert (
        "Cancel job" not in client_of(people["other"]).get(url[: -len("cancel/")]).content.decode()
    )
    assert client_of(people["other"]).post(url).status_code == 403
    jobs[0].refresh_from_db()
    assert jobs[0].status == BatchJob.Status.QUEUED
    assert "Cancel job" in client_of(people["owner"]).get(url[: -len("cancel/")]).content.decode()
    assert client_of(people["owner"]).post(url).status_code == 302
    assert client_of(people["admin"]).post(f"/batch/{jobs[1].public_id}/cancel/").status_code == 302
    statuses = set(BatchJob.objects.values_list("status", flat=True))
    assert statuses == {BatchJob.Status.CANCELLED}


def test_only_the_owner_or_an_admin_changes_or_deletes_a_policy(people: dict[str, Any]) -> None:
    policy = SourcePolicy.objects.create(name="Forums", created_by=people["owner"])
    edit = {"name": "Renamed", "excluded": "example.com"}
    other = client_of(people["other"])
    page = other.get(f"/policies/{policy.pk}/").content.decode()
    assert "Save policy" not in page and "Delete policy" not in page
    assert other.post(f"/policies/{policy.pk}/", edit).status_code == 403
    assert other.post(f"/policies/{policy.pk}/delete/").status_code == 403
    policy.refresh_from_db()
    assert policy.name == "Forums" and policy.excluded_domains == []
    assert client_of(people["owner"]).post(f"/policies/{policy.pk}/", edit).status_code == 302
    policy.refresh_from_db()
    assert policy.name == "Renamed"
    assert client_of(people["admin"]).post(f"/policies/{policy.pk}/delete/").status_code == 302
    assert not SourcePolicy.objects.exists()


def test_the_connect_page_lists_a_reviewers_own_keys_and_an_admin_every_owner(
    people: dict[str, Any],
) -> None:
    ApiKey.issue("olivia's pipeline", created_by=people["owner"])
    ApiKey.issue("oscar's pipeline", created_by=people["other"])
    page = client_of(people["other"]).get("/traces/connect/").content.decode()
    assert "oscar&#x27;s pipeline" in page and "olivia" not in page
    admin_page = client_of(people["admin"]).get("/traces/connect/").content.decode()
    assert "owner <bdi>olivia</bdi>" in admin_page and "owner <bdi>oscar</bdi>" in admin_page
    client_of(people["admin"]).post("/traces/connect/", {"name": "ada's key"})
    assert ApiKey.objects.get(name="ada's key").created_by == people["admin"]


def test_a_reviewer_cannot_reach_api_keys_in_the_admin(people: dict[str, Any]) -> None:
    key = ApiKey.issue("olivia's pipeline", created_by=people["owner"])[0]
    response = client_of(people["other"]).post(
        "/admin/api/apikey/", {"action": "revoke", "_selected_action": [key.pk]}
    )
    assert response.status_code in (302, 403)
    key.refresh_from_db()
    assert key.revoked_at is None
