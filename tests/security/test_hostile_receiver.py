"""The hostile-input walk of the OTLP receiver and of Label Studio imports (issue 32,
acceptance), and the guard that keeps every route taking a POST walked somewhere.

A valid OTLP/JSON export and a valid Label Studio export (a task with an annotation)
are sent leaf by leaf with hostile values in turn: each answer may be a refusal, never a
500, and the worker's side then runs over what was stored (the traces sweeper; a Label
Studio import queued as a job) without an unexpected error. The upload forms and the
API bodies are walked by test_hostile_forms.py and test_hostile_uploads.py; every other
route of the project that takes a POST must be walked here or say why it needs no walk.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client, override_settings
from django.urls import URLPattern, URLResolver, get_resolver

from grounding_app.annotations import exports, jobs
from grounding_app.annotations.models import ImportJob
from grounding_app.api.models import ApiKey
from grounding_app.traces import services as trace_services
from tests.security.conftest import World, signed_in
from tests.security.test_hostile_forms import LONE_SURROGATE, WALKED, _forms, hostile_inputs
from tests.security.test_hostile_uploads import API_UPLOADS
from tests.traces.conftest import JSON, encode, rag_traces, record

pytestmark = pytest.mark.django_db

# Values a JSON leaf is replaced with: wrong types, NULs, lone surrogates, numbers past
# Python's digit limit and a double's range, huge and deeply nested values.
HOSTILE_LEAVES: tuple[Any, ...] = (
    None,
    True,
    -1,
    10**4000,
    1e308,
    "",
    "\x00",
    "a\x00b",
    "\ud800",
    "9" * 5000,
    "1e309",
    "NaN",
    "x" * 100_000,
    "<script>alert(1)</script>",
    [],
    {},
    [[[[[[[[[[[[[[[[[[[[[[[[[["deep"]]]]]]]]]]]]]]]]]]]]]]]]]],
)
# Routes that take a POST and are walked by this module.
WALKED_HERE = frozenset(
    {"traces_otlp", "traces:connect", "verifiers:switch", "verifiers:adapt", "verifiers:llm_judge"}
)
# Routes that take a POST but read nothing a walk could make hostile.
NO_BODY_READ = {
    "traces:test_trace": "sends a sample trace; reads no field",
    "verifiers:llm_judge_try": "asks the saved judge a fixed sample claim; reads no field",
    "verifiers:llm_judge_reset": "forgets the saved judge; reads no field",
    "verifiers:calibration_apply": "applies the calibration its path names; reads no field",
    "verifiers:calibration_undo": "undoes the calibration its path names; reads no field",
    "batch_api_cancel": "cancels the key's own job; reads no body",
    "healthz": "a probe; reads nothing",
    "readyz": "a probe; reads nothing",
    "metrics": "Prometheus text; reads nothing",
    "home": "the home page; reads nothing",
    "^v[0-9]+(?:(?:alpha|beta)[0-9]*)?(?:/|$)": "the /v1 catch-all: 404 to every method",
}


def leaves(node: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    if isinstance(node, dict):
        for key, value in node.items():
            yield from leaves(value, (*path, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from leaves(value, (*path, index))
    else:
        yield path


def replaced(document: Any, path: tuple[Any, ...], value: Any) -> Any:
    changed = copy.deepcopy(document)
    node = changed
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = value
    return changed


def _dumps(document: Any) -> bytes:
    return json.dumps(document).encode("utf-8", "surrogatepass")


@override_settings(TRACES_QUIET_SECONDS=0)
def test_the_otlp_receiver_walked_leaf_by_leaf(client: Client) -> None:
    key = ApiKey.issue("hostile-receiver")[1]
    export = json.loads(encode(record([0], rag_traces.OPENINFERENCE), JSON))
    headers = {"x-goog-api-key": key}
    ok = client.post("/otlp/v1/traces", _dumps(export), content_type=JSON, headers=headers)
    assert ok.status_code == 200, ok.content
    crashes = []
    for path in leaves(export):
        for value in HOSTILE_LEAVES:
            body = _dumps(replaced(export, path, value))
            status = client.post(
                "/otlp/v1/traces", body, content_type=JSON, headers=headers
            ).status_code
            if status >= 500:
                crashes.append((path, repr(value)[:30]))
    assert not crashes, crashes
    assert trace_services.sweep(send=False) >= 1  # the worker assembles what was stored


def _export(world: World) -> list[dict[str, Any]]:
    """The project's first task with one annotation, as Label Studio exports it."""
    task = json.loads("".join(exports.label_studio_tasks(world.project)))[0]
    result = [
        {**region, "value": {**region["value"], "labels": ["Supported"]}}
        for region in task["predictions"][0]["result"]
    ]
    task["annotations"] = [{"id": 1, "completed_by": 7, "result": result}]
    return [task]


@pytest.mark.parametrize("path_taken", ["inline", "job"])
def test_label_studio_imports_walked_leaf_by_leaf(
    world: World, settings: Any, path_taken: str
) -> None:
    settings.LABEL_STUDIO_INLINE_BYTES = 10**9 if path_taken == "inline" else 0
    export = _export(world)
    client = signed_in(world.lead)()
    url = f"/annotations/{world.project.pk}/label-studio/"
    mapping = f"7 = {world.annotator.username}"

    def post(document: Any) -> int:
        upload = SimpleUploadedFile("export.json", _dumps(document))
        return client.post(url, {"file": upload, "annotators": mapping}).status_code

    assert post(export) == (200 if path_taken == "inline" else 302)
    crashes = [
        (path, repr(value)[:30])
        for path in leaves(export)
        for value in HOSTILE_LEAVES
        if post(replaced(export, path, value)) >= 500
    ]
    assert not crashes, crashes
    _run_every_import()


def _run_every_import() -> None:
    """The worker's side: each queued import read, none stopped by an unexpected error."""
    for pk in ImportJob.objects.values_list("pk", flat=True):
        jobs.run(pk)
    failed = ImportJob.objects.filter(error__contains="unexpected")
    assert not failed.exists(), list(failed.values_list("pk", flat=True))


def test_the_label_studio_form_walked_through_the_job(world: World, settings: Any) -> None:
    """The hostile-form walk's values for the import form, each read by the job."""
    settings.LABEL_STUDIO_INLINE_BYTES = 0
    form = _forms(world)["annotations:label_studio"]()
    from tests.security.test_hostile_forms import send

    crashes = [what for what, data in hostile_inputs(form) if send(form, data).status_code >= 500]
    assert not crashes, crashes
    assert ImportJob.objects.exists()
    _run_every_import()


JUDGE_FORM = {
    "enabled": "on",
    "url": "http://localhost:11434/v1",
    "model": "m",
    "low": "0.3",
    "high": "0.8",
    "timeout": "20",
    "concurrency": "2",
    "daily_tokens": "0",
}
JUDGE_FIELDS = (*JUDGE_FORM, "key", "clear_key", "every_claim", "unread_languages")
HOSTILE_TEXT = ("", "\x00", "x" * 100_000, "9" * 5000, "../../etc/passwd", "<script>")


@pytest.mark.usefixtures("fake_engine")  # a throwaway checker follows the judge saved here
def test_the_connect_and_verifier_forms(world: World, make_user: Any) -> None:
    client = signed_in(make_user("admin", "ada"))()
    posts: list[tuple[str, dict[str, Any] | str]] = []
    for value in HOSTILE_TEXT:
        posts += [
            ("/traces/connect/", {"name": value}),
            ("/verifiers/switch/", {"directory": value}),
            ("/verifiers/adapt/", {"project": value, "name": value, "epochs": value}),
            ("/verifiers/adapt/", {"project": world.project.pk, "name": value, "replay": value}),
            ("/verifiers/llm-judge/", {field: value for field in JUDGE_FIELDS} | {"enabled": "on"}),
            ("/verifiers/llm-judge/", {**JUDGE_FORM, "url": f"http://h/{value}", "key": value}),
            ("/verifiers/llm-judge/", {**JUDGE_FORM, "model": value, "band": value}),
        ]
    posts += [
        (url, f"name={LONE_SURROGATE}&url={LONE_SURROGATE}&model={LONE_SURROGATE}")
        for url in ("/traces/connect/", "/verifiers/adapt/", "/verifiers/llm-judge/")
    ]
    for url, data in posts:
        if isinstance(data, str):
            response = client.post(url, data, content_type="application/x-www-form-urlencoded")
        else:
            response = client.post(url, data)
        assert response.status_code < 500, (url, str(data)[:40])


def _routes(resolver: URLResolver, prefix: str = "", namespace: str = "") -> Iterator[Any]:
    for pattern in resolver.url_patterns:
        if isinstance(pattern, URLResolver):
            yield from _routes(
                pattern, prefix + str(pattern.pattern), pattern.namespace or namespace
            )
        else:
            assert isinstance(pattern, URLPattern)
            yield prefix + str(pattern.pattern), namespace, pattern


def test_every_route_that_takes_a_post_is_walked_somewhere(world: World, make_user: Any) -> None:
    """A new route that takes a POST (an upload above all) fails here until a walk
    covers it or it is listed with why none is needed."""
    admin = make_user("admin", "ada")
    key = ApiKey.issue("guard")[1]
    covered = set(WALKED) | WALKED_HERE | set(NO_BODY_READ) | {"check_grounding"}
    api_paths = set(API_UPLOADS)
    values = {"int": "1", "uuid": str(world.job.public_id)}
    unwalked = []
    for route, namespace, pattern in _routes(get_resolver()):
        if namespace == "admin":  # Django's admin: admins only, Django's own forms
            continue
        name = f"{namespace}:{pattern.name}" if namespace else (pattern.name or route)
        path = "/" + re.sub(
            r"<(?:(\w+):)?\w+>", lambda m: values.get(m.group(1) or "str", "x"), route
        )
        client = signed_in(admin)()  # anew: the sign-out route ends a session
        status = client.post(path, headers={"x-goog-api-key": key}).status_code
        if status == 405 or name in covered or path in api_paths:
            continue
        unwalked.append((name, path, status))
    assert not unwalked, f"routes that take a POST and no walk covers: {unwalked}"
