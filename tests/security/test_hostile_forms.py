"""Every HTML form of the reviews, annotations, batch, source policy and sign-in pages,
walked field by field with hostile values: the answer may be a refusal, never a 500.

Field names come from the form classes themselves, so a field added later is walked
too; only the per-claim label fields and the fact rows of a new review, which no form
class declares, are named here. Each walk first sends a valid baseline and checks that
it is accepted, so the walk reaches the code behind the form rather than stopping at a
login page or a 404; and every route of those apps that is not walked must refuse a
POST, so a new form cannot be left out unnoticed.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.http import HttpResponseBase
from django.test import Client
from django.urls import URLPattern, reverse

from grounding_app.accounts import urls as accounts_urls
from grounding_app.accounts.views import SignInView
from grounding_app.annotations import urls as annotations_urls
from grounding_app.annotations.allocation import next_assignment
from grounding_app.annotations.forms import (
    AdjudicateForm,
    ImportItemsForm,
    LabelStudioImportForm,
    NewProjectForm,
    ProjectForm,
    SendReviewForm,
)
from grounding_app.batch import urls as batch_urls
from grounding_app.batch.forms import BatchUploadForm
from grounding_app.monitoring import urls as monitoring_urls
from grounding_app.monitoring.forms import AlertRuleForm, SamplingRuleForm, SamplingStateForm
from grounding_app.monitoring.models import SamplingRule
from grounding_app.policies import urls as policies_urls
from grounding_app.policies.forms import AttachForm, PolicyForm
from grounding_app.reviews import urls as reviews_urls
from grounding_app.reviews.forms import (
    ImportForm,
    NewReviewForm,
    ReviewerVerdictForm,
    ReviewFilterForm,
)
from tests.annotations.conftest import FILM_FACTS, film_jsonl, grounding_line
from tests.batch.conftest import jsonl
from tests.security.conftest import PASSWORD, World, anonymous, import_review, signed_in
from tests.security.strategies import FIXTURES

pytestmark = pytest.mark.django_db

# Django decodes form bodies leniently; these bytes are a UTF-8-encoded lone surrogate
# (U+D800), which no str the test client could encode would ever produce.
LONE_SURROGATE = "%ED%A0%80"
HOSTILE = (
    "",
    "abc",
    "1.5",
    "-1",
    "²",
    "\u0661",  # Arabic-Indic one
    "\uff10",  # full-width zero
    "99999999999999999999",
    "1e309",
    "NaN",
    "x" * 100_000,
    "<script>alert(1)</script>",
    "javascript:alert(1)",
    "\x00",
    "a\x00b",
)
# Valid JSON (and JSONL) carrying what a text column may refuse, and parser traps.
HOSTILE_JSON = (
    json.dumps({"answerCandidate": "a\x00b", "facts": [{"factText": "c\x00d"}]}),
    json.dumps({"answerCandidate": "ab", "facts": [{"factText": "c\ud800d"}]}),
    json.dumps([{"factText": "a\x00b", "attributes": {"k\x00": "v\x00"}}]),
    grounding_line(0, "Titanic\x00 was directed by James Cameron."),
    json.dumps({"id": "\x00", "facts": FILM_FACTS, "claim": "x", "label": 10**30}),
    "[" * 50_000,
    "1e309",
    "-0",
    # Lines of the JSONL imports: a BOM, CRLF ends, a number past Python's 4,300 digits,
    # objects nested past the parser's recursion limit, and wrong types.
    "\ufeff" + grounding_line(0, "Titanic was directed by James Cameron."),
    film_jsonl(2).replace("\n", "\r\n"),
    '{"id": "a", "facts": [], "claim": "x", "label": 1' + "0" * 5_000 + "}",
    '{"a": ' * 5_000 + "1" + "}" * 5_000,
    json.dumps({"answerCandidate": 5, "facts": "x", "id": [], "claim": None, "label": "yes"}),
)
JSON_FIELDS = frozenset({"payload", "facts_json", "file"})
CHECK_REQUEST = {
    "answerCandidate": "Paris is the capital of France.",
    "facts": [{"factText": "Paris is the capital of France.", "attributes": {}}],
}


@dataclass(frozen=True)
class Form:
    """One form endpoint: where it goes, as whom, and what it accepts."""

    url: str
    client: Callable[[], Client]
    baseline: dict[str, Any]
    accepted: int  # the status of the baseline
    fields: tuple[str, ...]
    uploads: frozenset[str] = frozenset()
    # Fields left out while the key is hostile: the other half of an either-or pair
    # (paste or upload), so that the hostile value is read, not refused as "not both".
    apart: dict[str, tuple[str, ...]] = field(default_factory=dict)
    method: str = "post"


def fields_of(*form_classes: type) -> tuple[str, ...]:
    return tuple(dict.fromkeys(name for cls in form_classes for name in cls.base_fields))


def hostile_inputs(form: Form) -> Iterator[tuple[str, dict[str, Any] | str]]:
    """(what, data): each field hostile in turn, alone and after a valid value, then
    missing; a str is a raw url-encoded body or query string."""
    for name in form.fields or ("junk",):
        rest = {k: v for k, v in form.baseline.items() if k not in form.apart.get(name, ())}
        others = {k: v for k, v in rest.items() if k != name}
        valid = form.baseline.get(name, "")
        for value in HOSTILE + (HOSTILE_JSON if name in JSON_FIELDS else ()):
            yield f"{name}={value[:20]!r}", {**rest, name: value}
            if name not in form.uploads:
                yield f"{name}=[valid, {value[:20]!r}]", {**rest, name: [valid, value]}
        yield f"{name} missing", others
        if name in form.uploads:
            yield f"{name}=lone surrogate", {**others, name: "\ud800"}
        else:
            raw = urlencode(others, doseq=True) + f"&{name}={LONE_SURROGATE}"
            yield f"{name}=lone surrogate", raw
    yield "lone surrogate as a field name", f"{LONE_SURROGATE}=1"
    yield "nothing at all", {}


def send(form: Form, data: dict[str, Any] | str) -> HttpResponseBase:
    client = form.client()
    if form.method == "get":
        query = data if isinstance(data, str) else urlencode(data, doseq=True)
        return client.get(f"{form.url}?{query}")
    if isinstance(data, str):
        return client.post(form.url, data, content_type="application/x-www-form-urlencoded")
    files = {
        name: SimpleUploadedFile(
            "upload.json", str(value).encode("utf-8", "surrogatepass"), "application/json"
        )
        for name, value in data.items()
        if name in form.uploads
    }
    plain = {k: v for k, v in data.items() if k not in form.uploads}
    if files:  # multipart, as the upload forms send
        return client.post(form.url, {**plain, **files})
    return client.post(
        form.url, urlencode(plain, doseq=True), content_type="application/x-www-form-urlencoded"
    )


def _labeling(world: World, action: str) -> Form:
    """The labeling page's forms: fields named per claim, which `claim_states` reads."""
    assignment = next_assignment(world.project, world.annotator)
    assert assignment is not None
    claims = list(assignment.item.claims.all())
    baseline: dict[str, Any] = {"claim": claims[0].pk} if action == "draft" else {}
    if action != "skip":
        for claim in claims:
            baseline[f"label-{claim.pk}"] = "supported"
            baseline[f"cite-{claim.pk}"] = "0"
            baseline[f"note-{claim.pk}"] = "fine"
    return Form(
        reverse(f"annotations:{action}", args=[assignment.pk]),
        signed_in(world.annotator),
        baseline,
        200 if action == "draft" else 302,
        tuple(baseline),
    )


def _imported(world: World) -> str:
    """An imported Gemini answer with sources that have text: the engine's check takes it."""
    payload = (FIXTURES / "gemini_retrieved_context.json").read_text(encoding="utf-8")
    return str(import_review(world.lead, payload).public_id)


def _signed_in_anew(user: Any) -> Callable[[], Client]:
    """A fresh signed-in client per request, for the form that signs out."""

    def client() -> Client:
        return signed_in(user)()

    return client


def _sampling_rule(world: World) -> str:
    """A sampling rule of its own per walk (the delete walk's baseline deletes it)."""
    return str(SamplingRule.objects.create(job=world.job, project=world.project).pk)


def _forms(world: World) -> dict[str, Callable[[], Form]]:
    """Each walked route's form, built only when its walk runs (building one may change
    the database, as handing out an item does)."""
    lead = signed_in(world.lead)
    args = world.route_args
    review, project = {"public_id": args["public_id"]}, {"pk": args["pk"]}
    settings = {
        "name": "Films",
        "instructions": "Facts only.",
        "extra_labels": "Partially supported",
        "overlap": "1",
        "blind": "on",
        "annotators": [world.annotator.pk, world.lead.pk],
    }
    rows = ("fact-0-text", "fact-0-key-0", "fact-0-value-0")  # read from the post as is
    new_review = {
        "answer": "Paris is the capital of France.",
        "citation_threshold": "0.6",
        "facts_json": "",
        **dict(zip(rows, ("Paris is the capital of France.", "author", "Atlas"), strict=True)),
    }
    upload = {"uploads": frozenset({"file"}), "apart": {"file": ("payload",)}}
    job, policy = {"public_id": str(world.job.public_id)}, str(world.policy.pk)
    admin, rule = signed_in(world.admin), str(world.rule.pk)
    rule_settings = {
        "name": "Rate",
        "source": "",
        "key": "model",
        "value": "large",
        "kind": "rate",
        "window_minutes": "60",
        "level": "0.2",
        "min_answers": "10",
        "score_below": "0.5",
        "count": "5",
        "url": "https://hooks.example.com/hook",  # a name: the form does not resolve it
        "format": "generic",
        "enabled": "on",
    }
    policy_settings = {
        "name": "Blocked",
        "description": "No forums.",
        "excluded": "example.com\nforum.example.org",
        "context": "https://en.wikipedia.org/wiki/Paris",
        "preferred": "wikipedia.org",
        "text_prompt": "Prefer encyclopedias.",
        "voice_prompt": "",
    }
    policy_fields = fields_of(PolicyForm)
    return {
        "reviews:new": lambda: Form(
            reverse("reviews:new"),
            lead,
            new_review,
            302,
            fields_of(NewReviewForm) + rows,
            apart={"facts_json": rows},
        ),
        "reviews:import": lambda: Form(
            reverse("reviews:import"),
            lead,
            {"payload": json.dumps(CHECK_REQUEST)},
            302,
            fields_of(ImportForm),
            **upload,
        ),
        "reviews:list": lambda: Form(
            reverse("reviews:list"),
            lead,
            {"q": "paris", "min_score": "0.1", "date_from": "2020-01-01", "page": "1"},
            200,
            (*fields_of(ReviewFilterForm), "page"),
            method="get",
        ),
        "reviews:recheck": lambda: Form(
            reverse("reviews:recheck", kwargs=review), lead, {}, 302, ()
        ),
        "reviews:engine_check": lambda: Form(
            reverse("reviews:engine_check", kwargs={"public_id": _imported(world)}),
            lead,
            {},
            302,
            (),
        ),
        "reviews:delete": lambda: Form(reverse("reviews:delete", kwargs=review), lead, {}, 302, ()),
        "reviews:verdict": lambda: Form(
            reverse("reviews:verdict", kwargs=review),
            lead,
            {"candidate": "0", "claim": "1", "verdict": "unsupported", "note": "Wrong year."},
            302,
            fields_of(ReviewerVerdictForm),
        ),
        "annotations:new_project": lambda: Form(
            reverse("annotations:new_project"),
            lead,
            {**settings, "payload": film_jsonl(1)},
            302,
            fields_of(NewProjectForm),
            **upload,
        ),
        "annotations:settings": lambda: Form(
            reverse("annotations:settings", kwargs=project),
            lead,
            settings,
            302,
            fields_of(ProjectForm),
        ),
        "annotations:import_items": lambda: Form(
            reverse("annotations:import_items", kwargs=project),
            lead,
            {"payload": film_jsonl(1)},
            302,
            fields_of(ImportItemsForm),
            **upload,
        ),
        "annotations:next": lambda: Form(
            reverse("annotations:next", kwargs=project), lead, {}, 302, ()
        ),
        "annotations:label_studio": lambda: Form(
            reverse("annotations:label_studio", kwargs=project),
            lead,
            {
                "file": json.dumps([{"id": 1, "data": {"answer": "a"}, "annotations": []}]),
                "annotators": f"7 = {world.annotator.username}",
            },
            200,
            fields_of(LabelStudioImportForm),
            uploads=frozenset({"file"}),
        ),
        "annotations:adjudicate": lambda: Form(
            reverse("annotations:adjudicate", kwargs={**project, "claim_pk": args["claim_pk"]}),
            lead,
            {"label": "supported"},
            302,
            fields_of(AdjudicateForm),
        ),
        "annotations:send_review": lambda: Form(
            reverse("annotations:send_review", kwargs=review),
            lead,
            {"project": args["pk"]},
            302,
            fields_of(SendReviewForm),
        ),
        "annotations:draft": lambda: _labeling(world, "draft"),
        "annotations:submit": lambda: _labeling(world, "submit"),
        "annotations:skip": lambda: _labeling(world, "skip"),
        "batch:jobs": lambda: Form(
            reverse("batch:jobs"),
            lead,
            {"file": jsonl(2).decode(), "citation_threshold": "0.6", "source_policy": policy},
            302,
            fields_of(BatchUploadForm),
            uploads=frozenset({"file"}),
        ),
        "batch:cancel": lambda: Form(reverse("batch:cancel", kwargs=job), lead, {}, 302, ()),
        "batch:line_review": lambda: Form(
            reverse("batch:line_review", kwargs={**job, "number": 1}), lead, {}, 302, ()
        ),
        "policies:new": lambda: Form(
            reverse("policies:new"), lead, {**policy_settings, "name": "New"}, 302, policy_fields
        ),
        "policies:detail": lambda: Form(
            reverse("policies:detail", args=[policy]), lead, policy_settings, 302, policy_fields
        ),
        "policies:delete": lambda: Form(
            reverse("policies:delete", args=[policy]), lead, {}, 302, ()
        ),
        "monitoring:sampling": lambda: Form(
            reverse("monitoring:sampling"),
            admin,
            {"job": str(world.job.pk), "project": str(args["pk"]), "band": "0.1"}
            | {"daily_quota": "20", "enabled": "on"},
            302,
            fields_of(SamplingRuleForm),
        ),
        "monitoring:sampling_edit": lambda: Form(
            reverse("monitoring:sampling_edit", args=[_sampling_rule(world)]),
            admin,
            {"job": str(world.job.pk), "project": str(args["pk"]), "band": "0.2"}
            | {"daily_quota": "5", "enabled": "on"},
            302,
            fields_of(SamplingRuleForm),
        ),
        "monitoring:sampling_state": lambda: Form(
            reverse("monitoring:sampling_state", args=[_sampling_rule(world)]),
            admin,
            {"state": "paused"},
            302,
            fields_of(SamplingStateForm),
        ),
        "monitoring:sampling_delete": lambda: Form(
            reverse("monitoring:sampling_delete", args=[_sampling_rule(world)]), admin, {}, 302, ()
        ),
        "monitoring:sampling_run": lambda: Form(
            reverse("monitoring:sampling_run", args=[_sampling_rule(world)]), admin, {}, 302, ()
        ),
        "monitoring:rule_new": lambda: Form(
            reverse("monitoring:rule_new"), admin, rule_settings, 302, fields_of(AlertRuleForm)
        ),
        "monitoring:rule_edit": lambda: Form(
            reverse("monitoring:rule_edit", args=[rule]),
            admin,
            rule_settings,
            302,
            fields_of(AlertRuleForm),
        ),
        "monitoring:rule_test": lambda: Form(
            reverse("monitoring:rule_test", args=[rule]), admin, {}, 302, ()
        ),
        "monitoring:rule_delete": lambda: Form(
            reverse("monitoring:rule_delete", args=[rule]), admin, {}, 302, ()
        ),
        "policies:attach_review": lambda: Form(
            reverse("policies:attach_review", kwargs=review),
            lead,
            {"policy": policy},
            302,
            fields_of(AttachForm),
        ),
        "policies:attach_project": lambda: Form(
            reverse("policies:attach_project", kwargs=project),
            lead,
            {"policy": policy},
            302,
            fields_of(AttachForm),
        ),
        "accounts:login": lambda: Form(
            reverse("accounts:login"),
            anonymous,  # a signed-in client would only be sent on
            {"username": world.lead.username, "password": PASSWORD, "next": "/reviews/"},
            302,
            (*fields_of(SignInView.form_class), "next"),
        ),
        "accounts:logout": lambda: Form(
            reverse("accounts:logout"), _signed_in_anew(world.lead), {}, 302, ()
        ),
    }


WALKED = (
    "reviews:new",
    "reviews:import",
    "reviews:list",
    "reviews:recheck",
    "reviews:engine_check",
    "reviews:delete",
    "reviews:verdict",
    "annotations:new_project",
    "annotations:settings",
    "annotations:import_items",
    "annotations:next",
    "annotations:label_studio",
    "annotations:adjudicate",
    "annotations:send_review",
    "annotations:draft",
    "annotations:submit",
    "annotations:skip",
    "batch:jobs",
    "batch:cancel",
    "batch:line_review",
    "policies:new",
    "policies:detail",
    "policies:delete",
    "policies:attach_review",
    "policies:attach_project",
    "monitoring:rule_new",
    "monitoring:rule_edit",
    "monitoring:rule_test",
    "monitoring:rule_delete",
    "monitoring:sampling",
    "monitoring:sampling_edit",
    "monitoring:sampling_state",
    "monitoring:sampling_delete",
    "monitoring:sampling_run",
    "accounts:login",
    "accounts:logout",
)
GET_FORMS = frozenset({"reviews:list"})


def _status(form: Form, data: dict[str, Any] | str) -> int:
    return send(form, data).status_code


@pytest.mark.parametrize("name", WALKED)
def test_no_hostile_value_gives_a_500(world: World, name: str) -> None:
    form = _forms(world)[name]()
    assert _status(form, form.baseline) == form.accepted, "the valid baseline must be accepted"
    crashes = [what for what, data in hostile_inputs(form) if _status(form, data) >= 500]
    assert not crashes, f"{name} answered 500 to: {crashes}"


def test_every_route_that_takes_a_post_is_walked(world: World) -> None:
    client = signed_in(world.lead)()
    for app in (
        reviews_urls,
        annotations_urls,
        batch_urls,
        policies_urls,
        monitoring_urls,
        accounts_urls,
    ):
        for route in app.urlpatterns:
            assert isinstance(route, URLPattern)
            name = f"{app.app_name}:{route.name}"
            if name in WALKED and name not in GET_FORMS:
                continue
            args = world.args_for(app.app_name)
            kwargs = {arg: args[arg] for arg in route.pattern.converters}
            response = client.post(reverse(name, kwargs=kwargs))
            assert response.status_code == 405, f"{name} takes a POST: add it to WALKED"
