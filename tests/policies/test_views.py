"""The policy pages: who may use them, what a policy accepts, and the review page's flags."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from grounding_app.annotations.items import create_project
from grounding_app.policies.models import ProjectPolicy, ReviewPolicy, SourcePolicy
from grounding_app.reviews.models import Review

pytestmark = pytest.mark.django_db

IMPORTS = Path(__file__).resolve().parent.parent / "fixtures" / "imports"
LEADS = "roles: reviewer, admin"


def _routes(resolver: URLResolver, prefix: str = "") -> list[tuple[str, URLPattern]]:
    found = []
    for pattern in resolver.url_patterns:
        if isinstance(pattern, URLResolver):
            found += _routes(pattern, prefix + str(pattern.pattern))
        else:
            found.append((prefix + str(pattern.pattern), pattern))
    return found


def test_every_policy_route_is_for_leads() -> None:
    ours = [(r, p) for r, p in _routes(get_resolver()) if r.startswith("policies/")]
    assert len(ours) == 6
    for route, pattern in ours:
        assert getattr(pattern.callback, "access_rule", None) == LEADS, route


def client_for(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def policy() -> SourcePolicy:
    return SourcePolicy.objects.create(
        name="Newsroom",
        excluded_domains=["uefa.com"],
        preferred_domains=["wikipedia.org"],
        context_urls=["https://www.uefa.com/euro2024/", "https://example.org/never"],
    )


@pytest.fixture
def review(make_user: Callable[..., Any]) -> Review:
    client = client_for(make_user("reviewer", "importer"))
    payload = (IMPORTS / "gemini_web_search.json").read_text(encoding="utf-8")
    response = client.post("/reviews/import/", {"payload": payload})
    assert response.status_code == 302
    return Review.objects.get()


@pytest.mark.parametrize(
    ("role", "status"),
    [("", 403), ("annotator", 403), ("reviewer", 200), ("admin", 200), ("superuser", 200)],
)
def test_pages_by_role(
    role: str, status: int, policy: SourcePolicy, make_user: Callable[..., Any]
) -> None:
    client = client_for(make_user(role))
    for url in ("/policies/", "/policies/new/", f"/policies/{policy.pk}/"):
        assert client.get(url).status_code == status, url
    # Someone else's policy: only an admin deletes it (the ownership rule, issue 32).
    expected_post = 302 if role in ("admin", "superuser") else 403
    assert client.post(f"/policies/{policy.pk}/delete/").status_code == expected_post


def test_anonymous_goes_to_sign_in(policy: SourcePolicy) -> None:
    response = Client().get("/policies/")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_posts_need_the_csrf_token(
    policy: SourcePolicy, review: Review, make_user: Callable[..., Any]
) -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(make_user("reviewer"))
    for url in (
        "/policies/new/",
        f"/policies/{policy.pk}/",
        f"/policies/{policy.pk}/delete/",
        f"/policies/review/{review.public_id}/",
    ):
        assert client.post(url, {"name": "x", "policy": policy.pk}).status_code == 403, url


def test_create_normalizes_and_deduplicates(make_user: Callable[..., Any]) -> None:
    client = client_for(make_user("reviewer"))
    response = client.post(
        "/policies/new/",
        {
            "name": "Sports",
            "excluded": "UEFA.com\nbücher.example, xn--bcher-kva.example\n\nspam.example.",
            "preferred": "wikipedia.org",
            "context": "https://www.uefa.com/euro2024/ https://example.org/a?x=1,2",
            "text_prompt": "Prefer official sources.",
        },
    )
    assert response.status_code == 302
    policy = SourcePolicy.objects.get()
    assert policy.excluded_domains == ["uefa.com", "xn--bcher-kva.example", "spam.example"]
    assert policy.tool_json() == {
        "name": "Sports",
        "contextUrls": ["https://www.uefa.com/euro2024/", "https://example.org/a?x=1,2"],
        "preferredDomains": ["wikipedia.org"],
        "excludeDomains": ["uefa.com", "xn--bcher-kva.example", "spam.example"],
        "promptConfig": {"textPrompt": "Prefer official sources."},
    }
    page = client.get(policy.get_absolute_url()).content.decode()
    # The context URL is on an excluded domain: the page says it has no effect.
    assert "not used: its domain is excluded (uefa.com)" in page


@pytest.mark.parametrize(
    ("field", "value", "error"),
    [
        ("excluded", "\n".join(f"d{n}.example" for n in range(2001)), "at most 2,000"),
        ("preferred", "\n".join(f"d{n}.example" for n in range(21)), "at most 20"),
        ("context", "\n".join(f"https://x.example/{n}" for n in range(21)), "at most 20"),
        ("excluded", "ok.example\nhttps://bad.example/", "Line 2"),
        ("excluded", "*.example.com", "wildcard"),
        ("preferred", "example.com:8080", "port"),
        ("context", "ftp://example.com/", "not an absolute http(s) URL"),
        ("context", "javascript:alert(1)", "not an absolute http(s) URL"),
    ],
)
def test_limits_and_bad_entries_are_refused(
    field: str, value: str, error: str, make_user: Callable[..., Any]
) -> None:
    client = client_for(make_user("reviewer"))
    response = client.post("/policies/new/", {"name": "P", field: value})
    assert response.status_code == 200
    assert error in response.content.decode()
    assert not SourcePolicy.objects.exists()


def test_exactly_the_limits_are_accepted(make_user: Callable[..., Any]) -> None:
    client = client_for(make_user("reviewer"))
    response = client.post(
        "/policies/new/",
        {
            "name": "Big",
            "excluded": "\n".join(f"d{n}.example" for n in range(2000)),
            "preferred": "\n".join(f"p{n}.example" for n in range(20)),
            "context": "\n".join(f"https://x.example/{n}" for n in range(20)),
        },
    )
    assert response.status_code == 302
    policy = SourcePolicy.objects.get()
    assert len(policy.excluded_domains) == 2000 and len(policy.context_urls) == 20


@pytest.mark.parametrize(
    "value",
    ["", "abc", "\x00", "a\x00b", "x" * 100_000, "99999999999999999999", "<script>", "²", "-1"],
)
def test_hostile_values_are_refused_never_a_500(
    value: str, policy: SourcePolicy, review: Review, make_user: Callable[..., Any]
) -> None:
    client = client_for(make_user("reviewer"))
    for field in ("name", "description", "excluded", "preferred", "context", "text_prompt"):
        response = client.post("/policies/new/", {"name": "N", field: value})
        assert response.status_code in (200, 302), (field, value)
        SourcePolicy.objects.exclude(pk=policy.pk).delete()
    attach = client.post(f"/policies/review/{review.public_id}/", {"policy": value})
    assert attach.status_code == 302
    assert not ReviewPolicy.objects.exists() or value == ""


def test_review_page_flags_excluded_marks_preferred_and_lists_uncited_context(
    policy: SourcePolicy, review: Review, make_user: Callable[..., Any]
) -> None:
    client = client_for(make_user("reviewer"))
    page = client.get(review.get_absolute_url()).content.decode()
    assert 'id="source-policy"' in page and "No policy attached" in page
    response = client.post(f"/policies/review/{review.public_id}/", {"policy": policy.pk})
    assert response["Location"].endswith("#source-policy")
    page = client.get(review.get_absolute_url()).content.decode()
    assert "1 source from excluded domains" in page
    assert "Excluded domain <bdi>(uefa.com)</bdi>" in page
    assert "Preferred <bdi>(wikipedia.org)</bdi>" in page
    # The uefa.com context URL is not used (its domain is excluded); the other was never cited.
    assert "not used: domain excluded" in page
    assert page.count("never cited") == 1
    assert page.count('data-status="other"') == 1  # aljazeera.com
    client.post(f"/policies/review/{review.public_id}/", {"policy": ""})
    assert not ReviewPolicy.objects.exists()


def test_attachments_live_in_the_policy_app_and_go_with_their_review(
    policy: SourcePolicy, review: Review, lead_user: Any
) -> None:
    ReviewPolicy.objects.create(review=review, policy=policy)
    project = create_project(lead_user, name="P")
    ProjectPolicy.objects.create(project=project, policy=policy)
    review.delete()
    assert not ReviewPolicy.objects.exists()
    policy.delete()
    assert not ProjectPolicy.objects.exists()


@pytest.fixture
def lead_user(make_user: Callable[..., Any]) -> Any:
    return make_user("reviewer", "lead")


def test_policy_page_shows_the_tool_json(policy: SourcePolicy, lead_user: Any) -> None:
    page = client_for(lead_user).get(policy.get_absolute_url()).content.decode()
    data = json.dumps(policy.tool_json(), indent=2, ensure_ascii=False)
    assert data.replace('"', "&quot;") in page
