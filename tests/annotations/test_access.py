"""Who may do what: every route declares one rule, and each role meets it as intended."""

from __future__ import annotations

import re
from collections.abc import Callable
from html.parser import HTMLParser
from typing import Any

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from grounding_app.annotations.allocation import next_assignment
from grounding_app.annotations.items import create_project
from grounding_app.annotations.models import LabelingProject
from grounding_app.reviews.models import Review

pytestmark = pytest.mark.django_db

LEADS = "roles: reviewer, admin"
LABELERS = "roles: annotator, reviewer, admin"
LABELER_ROUTES = {
    "annotations/",
    "annotations/<int:pk>/",
    "annotations/<int:pk>/next/",
    "annotations/label/<int:pk>/",
    "annotations/label/<int:pk>/draft/",
    "annotations/label/<int:pk>/submit/",
    "annotations/label/<int:pk>/skip/",
    "annotations/label/<int:pk>/suggestions/<int:number>/",
}


def _patterns(resolver: URLResolver, prefix: str = "") -> list[tuple[str, URLPattern]]:
    found = []
    for pattern in resolver.url_patterns:
        if isinstance(pattern, URLResolver):
            found += _patterns(pattern, prefix + str(pattern.pattern))
        else:
            found.append((prefix + str(pattern.pattern), pattern))
    return found


def test_every_annotation_route_declares_its_rule() -> None:
    ours = [(r, p) for r, p in _patterns(get_resolver()) if r.startswith("annotations/")]
    assert len(ours) == 19
    for route, pattern in ours:
        rule = getattr(pattern.callback, "access_rule", None)
        assert rule == (LABELERS if route in LABELER_ROUTES else LEADS), route


ROLES = ["anonymous", "outsider", "stranger", "annotator", "reviewer", "admin", "superuser"]
# stranger: an annotator the project is not assigned to. The assignment belongs to the
# annotator, so everyone else gets 404 on it (leads included).
_ANY_LABELER = {"annotator": 200, "reviewer": 200, "admin": 200, "superuser": 200, "stranger": 200}
_PROJECT = {"annotator": 200, "reviewer": 200, "admin": 200, "superuser": 200, "stranger": 403}
_LEADS = {"reviewer": 200, "admin": 200, "superuser": 200, "annotator": 403, "stranger": 403}
_LEADS_POST = {"reviewer": 302, "admin": 302, "superuser": 302, "annotator": 403, "stranger": 403}
# Issue 44 item 9: a reviewer who did not create the project may not change it.
_MANAGERS = {**_LEADS, "reviewer": 403}
_OWNER = {"annotator": 200, "reviewer": 404, "admin": 404, "superuser": 404, "stranger": 404}
_OWNER_POST = {**_OWNER, "annotator": 302}
VIEWS: list[tuple[str, str, dict[str, int]]] = [
    ("get", "/annotations/", _ANY_LABELER),
    ("get", "/annotations/new/", _LEADS),
    ("post", "/annotations/new/", _LEADS),
    ("get", "/annotations/{p}/", _PROJECT),
    ("get", "/annotations/{p}/settings/", _MANAGERS),
    ("post", "/annotations/{p}/settings/", _MANAGERS),
    ("get", "/annotations/{p}/import/", _MANAGERS),
    ("post", "/annotations/{p}/import/", _MANAGERS),
    (
        "post",
        "/annotations/{p}/next/",
        {**_PROJECT, "annotator": 302, "reviewer": 403, "admin": 403, "superuser": 403},
    ),
    ("get", "/annotations/{p}/agreement/", _LEADS),
    ("post", "/annotations/{p}/claims/{c}/adjudicate/", _LEADS_POST),
    ("get", "/annotations/{p}/export.jsonl", _LEADS),
    ("get", "/annotations/{p}/export.csv", _LEADS),
    ("get", "/annotations/{p}/label-studio/export.json", _LEADS),
    ("get", "/annotations/{p}/label-studio/", _MANAGERS),
    (
        "post",
        "/annotations/{p}/label-studio/",
        {**_MANAGERS, "admin": 400, "superuser": 400},
    ),
    ("get", "/annotations/label/{a}/", _OWNER),
    ("post", "/annotations/label/{a}/draft/", _OWNER),
    ("post", "/annotations/label/{a}/submit/", {**_OWNER, "annotator": 400}),
    ("post", "/annotations/label/{a}/skip/", _OWNER_POST),
    # The owner gets 404 too: the film items came with no Search Suggestions.
    ("get", "/annotations/label/{a}/suggestions/0/", {**_OWNER, "annotator": 404}),
    ("post", "/annotations/send-review/{r}/", _LEADS_POST),
]


@pytest.fixture
def world(
    project: LabelingProject, annotators: list[Any], make_user: Callable[..., Any]
) -> dict[str, Any]:
    owner = annotators[0]
    assignment = next_assignment(project, owner)
    assert assignment is not None
    review = Review.objects.create(
        answer="Titanic was directed by James Cameron.",
        facts=[{"factText": "James Cameron directed Titanic.", "attributes": {}}],
        source_format=Review.Format.MANUAL,
        result={"version": 1, "format": "check_grounding", "candidates": []},
        summary=Review.Summary.NO_VERDICT,
    )
    return {
        "p": project.pk,
        "a": assignment.pk,
        "c": assignment.item.claims.get().pk,
        "r": review.public_id,
        "owner": owner,
    }


def _client(role: str, world: dict[str, Any], make_user: Callable[..., Any]) -> Client:
    client = Client()
    if role == "anonymous":
        return client
    if role == "annotator":
        user = world["owner"]
    elif role == "stranger":
        user = make_user("annotator")
    else:
        user = make_user("" if role == "outsider" else role)
    client.force_login(user)
    return client


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize(
    ("method", "url", "expected"), VIEWS, ids=[f"{m} {u}" for m, u, _ in VIEWS]
)
def test_views_by_role(
    role: str,
    method: str,
    url: str,
    expected: dict[str, int],
    world: dict[str, Any],
    make_user: Callable[..., Any],
    fake_engine: Any,
) -> None:
    client = _client(role, world, make_user)
    path = url.format(**world)
    data = {"label": "supported", "project": world["p"], "claim": world["c"]}
    response = client.get(path) if method == "get" else client.post(path, data)
    if role == "anonymous":
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    elif role == "outsider":
        assert response.status_code == 403
    else:
        assert response.status_code == expected[role], (role, method, path)


def test_annotators_see_only_their_projects(
    project: LabelingProject, annotators: list[Any], make_user: Callable[..., Any], lead: Any
) -> None:
    hidden = create_project(lead, name="Secret queue")
    mine = Client()
    mine.force_login(annotators[0])
    page = mine.get("/annotations/").content.decode()
    assert "Film facts" in page and "Secret queue" not in page
    stranger = Client()
    stranger.force_login(make_user("annotator"))
    page = stranger.get("/annotations/").content.decode()
    assert "Film facts" not in page and "No labeling project is assigned to you" in page
    leader = Client()
    leader.force_login(lead)
    page = leader.get("/annotations/").content.decode()
    assert "Film facts" in page and "Secret queue" in page and hidden.name in page


class _Tags(HTMLParser):
    """Every start tag with its attributes, and any text inside <script> elements."""

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


def test_pages_need_nothing_the_csp_forbids(world: dict[str, Any], lead: Any) -> None:
    """No inline script, event handler or style attribute; every script carries the nonce."""
    owner = Client()
    owner.force_login(world["owner"])
    leader = Client()
    leader.force_login(lead)
    pages = [
        (owner, "/annotations/"),
        (owner, f"/annotations/{world['p']}/"),
        (owner, f"/annotations/label/{world['a']}/"),
        (leader, "/annotations/new/"),
        (leader, f"/annotations/{world['p']}/"),
        (leader, f"/annotations/{world['p']}/settings/"),
        (leader, f"/annotations/{world['p']}/import/"),
        (leader, f"/annotations/{world['p']}/agreement/"),
    ]
    for client, url in pages:
        response = client.get(url)
        assert response.status_code == 200, url
        nonce = re.search(r"'nonce-([^']+)'", response["Content-Security-Policy"])
        assert nonce, url
        parser = _Tags()
        parser.feed(response.content.decode())
        assert parser.inline_script == "", url
        for tag, attrs in parser.tags:
            assert "style" not in attrs, (url, tag)
            assert not [name for name in attrs if name.startswith("on")], (url, tag)
            if tag == "script":
                assert attrs.get("src") and attrs.get("nonce") == nonce[1], (url, attrs)
