"""Every GET route of the reviews, annotations, batch, policies and accounts apps, sent
the query parameters its view reads (and a few it does not) with hostile values: the
answer may be a refusal or the page as if the parameter were absent, never a 500.

Routes are taken from the apps' urls.py, so a new page is walked too; each first
answers a plain GET with 200 on real objects, so the walk reaches the view rather
than a 404. A route that refuses GET (405) takes only POSTs, which
test_hostile_forms walks.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from types import ModuleType
from typing import Any
from urllib.parse import quote

import pytest
from django.http import HttpResponseBase
from django.test import Client
from django.urls import URLPattern, reverse

from grounding_app.accounts import urls as accounts_urls
from grounding_app.annotations import urls as annotations_urls
from grounding_app.annotations.allocation import next_assignment
from grounding_app.annotations.items import create_project, import_jsonl
from grounding_app.api.models import ApiKey
from grounding_app.batch import urls as batch_urls
from grounding_app.policies import urls as policies_urls
from grounding_app.reviews import urls as reviews_urls
from grounding_app.reviews.forms import ReviewFilterForm
from tests.batch.conftest import jsonl
from tests.security.conftest import World, anonymous, import_review, signed_in
from tests.security.strategies import FIXTURES
from tests.security.test_hostile_forms import WALKED

pytestmark = pytest.mark.django_db

APPS: tuple[ModuleType, ...] = (
    reviews_urls,
    annotations_urls,
    batch_urls,
    policies_urls,
    accounts_urls,
)
# Already percent-encoded: the bytes a browser or a script may send that no str can
# carry (a NUL, a UTF-8 lone surrogate, a byte that is not UTF-8).
RAW = ("%00", "%ED%A0%80", "%FF", "%", "%%41")
HOSTILE = (
    "",
    "0." + "1" * 5_000,
    "1e309",
    "-1",
    "99999999999999999999",
    "nan",
    "\x00",
    "<script>alert(1)</script>",
    "x" * 20_000,
    "../../etc/passwd",
)
FILTERS = (*ReviewFilterForm.base_fields, "page")
# What each view reads from request.GET (grep request.GET in the apps' views); every
# route also gets COMMON: `key`, which the cache middleware reads on every answer, and
# a name no view reads.
READS: dict[str, tuple[str, ...]] = {
    "reviews:list": FILTERS,
    "reviews:export_jsonl": FILTERS,
    "reviews:export_csv": FILTERS,
    "reviews:detail": ("view", "only", "verdict"),
    "annotations:agreement": ("page",),
    "annotations:export_jsonl": ("schema",),
    "batch:detail": ("by",),
    "batch:progress": ("was",),
    "accounts:login": ("next",),
}
COMMON = ("key", "junk")
HTMX = frozenset({"reviews:second_opinion", "batch:progress"})  # a 302 without htmx


def _routes() -> list[str]:
    return [
        f"{app.app_name}:{route.name}"
        for app in APPS
        for route in app.urlpatterns
        if isinstance(route, URLPattern)
    ]


def _url(world: World, name: str) -> str:
    app = name.split(":")[0]
    route = next(r for r in _app(app).urlpatterns if f"{app}:{r.name}" == name)
    args = dict(world.args_for(app))
    project = world.project
    if name.endswith("suggestions"):  # only a Gemini web-search answer carries them
        gemini = json.dumps(json.loads((FIXTURES / "gemini_web_search.json").read_text()))
        review = import_review(world.lead, gemini)
        args["public_id"] = str(review.public_id)
        project = create_project(world.lead, name="Gemini", annotators=[world.lead])
        import_jsonl(project, gemini + "\n")
    if name in ("annotations:label", "annotations:label_suggestions"):  # they name an assignment
        assignment = next_assignment(project, world.lead)
        assert assignment is not None
        args["pk"] = assignment.pk
    return reverse(name, kwargs={arg: args[arg] for arg in route.pattern.converters})


def _app(name: str) -> ModuleType:
    return next(app for app in APPS if app.app_name == name)


def queries(params: tuple[str, ...]) -> Iterator[str]:
    """Raw query strings: each parameter hostile in turn, repeated, and all at once."""
    for param in params:
        for value in HOSTILE:
            yield f"{param}={quote(value)}"
            yield f"{param}=1&{param}={quote(value)}"
        for raw in RAW:
            yield f"{param}={raw}"
        yield param  # a key without '='
        yield "&".join(f"{param}={n}" for n in range(1_000))
    for raw in RAW:
        yield f"{raw}=1"
        yield "&".join(f"{param}={raw}" for param in params)


def _get(client: Client, url: str, htmx: bool) -> HttpResponseBase:
    headers = {"HX-Request": "true"} if htmx else {}
    response = client.get(url, headers=headers)
    if response.streaming:  # an export fails while it streams, not before
        b"".join(response.streaming_content)  # type: ignore[attr-defined]
    return response


@pytest.mark.parametrize("name", _routes())
def test_no_hostile_query_gives_a_500(world: World, name: str) -> None:
    url = _url(world, name)
    client: Any = anonymous() if name.startswith("accounts:") else signed_in(world.lead)()
    htmx = name in HTMX
    baseline = _get(client, url, htmx).status_code
    if baseline == 405:
        assert name in WALKED, f"{name} refuses GET and takes a POST no walk sends"
        return
    assert baseline == 200, f"{name}: a plain GET must answer 200, not {baseline}"
    crashes = []
    for query in queries(READS.get(name, ()) + COMMON):
        try:
            status = _get(client, f"{url}?{query}", htmx).status_code
        except Exception as exc:  # a crash while streaming
            status, query = 500, f"{query[:60]} ({exc!r:.80})"
        if status >= 500:
            crashes.append(query[:60])
    assert not crashes, f"{name} answered 500 to: {crashes}"


def test_no_hostile_query_on_the_batch_api_gives_a_500(world: World, settings: Any) -> None:
    """The batch API reads its options from the query string (see batch/api.py)."""
    settings.API_RATE_LIMIT = 0
    settings.BATCH_KEY_WAITING_LINES = 0
    key = ApiKey.issue("hostile")[1]
    body = jsonl(1)
    client = anonymous()
    crashes = []
    for query in queries(("citationThreshold", "sourcePolicy", "requestId", "key", "junk")):
        response = client.post(
            f"/v1/batchJobs?{query}", body, "application/x-ndjson", headers={"x-goog-api-key": key}
        )
        if response.status_code >= 500:
            crashes.append(query[:60])
    assert not crashes, f"the batch API answered 500 to: {crashes}"
