"""The world the hostile walks run in: users, a labeling project, a review, a source
policy and a finished batch job, so every route of the walked apps resolves."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from grounding_app.annotations.items import create_project, import_jsonl
from grounding_app.annotations.models import ImportJob, ItemClaim, LabelingProject
from grounding_app.batch import intake as batch_intake
from grounding_app.batch import running as batch_running
from grounding_app.batch.models import BatchChunk, BatchJob
from grounding_app.engine import CheckRequest, Fact, GroundingEngine
from grounding_app.monitoring.models import AlertRule
from grounding_app.policies.models import SourcePolicy
from grounding_app.reviews import services as review_services
from grounding_app.reviews.models import Review
from tests.annotations.conftest import film_jsonl
from tests.batch.conftest import jsonl

PASSWORD = "pw-for-tests-only"  # what the make_user fixture gives everyone


def signed_in(user: Any) -> Callable[[], Client]:
    """The same signed-in client for every request; a crash comes back as a 500."""
    client = Client(raise_request_exception=False)
    client.force_login(user)
    return lambda: client


def anonymous() -> Client:
    return Client(raise_request_exception=False)


def import_review(user: Any, payload: str) -> Review:
    """An answer imported through the page, as a reviewer brings one (Gemini, agent)."""
    response = signed_in(user)().post(reverse("reviews:import"), {"payload": payload})
    assert response.status_code == 302
    return Review.objects.get(public_id=response["Location"].split("/")[-2])


@dataclass(frozen=True)
class World:
    lead: Any
    annotator: Any
    project: LabelingProject
    claim: ItemClaim
    review_id: str
    policy: SourcePolicy
    job: BatchJob
    import_job: ImportJob
    admin: Any
    rule: AlertRule

    @property
    def route_args(self) -> dict[str, Any]:
        """A value for every argument the routes of the reviews, annotations and
        accounts apps take."""
        return {
            "pk": self.project.pk,
            "claim_pk": self.claim.pk,
            "public_id": self.review_id,
            "candidate": 0,
            "number": 0,
            "job_pk": self.import_job.pk,
        }

    def args_for(self, app: str) -> dict[str, Any]:
        """The route arguments of one app: batch routes name a job and its first line,
        policy routes a policy (its attach routes are walked, never resolved here)."""
        if app == "batch":
            return {"public_id": str(self.job.public_id), "number": 1}
        if app == "policies":
            return {**self.route_args, "pk": self.policy.pk}
        if app == "monitoring":
            return {"pk": self.rule.pk}
        return self.route_args


@pytest.fixture
def world(fake_engine: GroundingEngine, make_user: Callable[..., Any]) -> World:
    lead = make_user("reviewer", "lena")
    annotator = make_user("annotator", "ann")
    project = create_project(lead, name="Films", overlap=1, annotators=[annotator, lead])
    import_jsonl(project, film_jsonl(2))
    request = CheckRequest(
        "Paris is the capital of France.",
        (Fact("Paris is the capital of France.", {"author": "Atlas"}),),
        enable_claim_level_score=True,
    )
    review = review_services.check_and_save(lead, request)
    claim = ItemClaim.objects.filter(item__project=project).first()
    assert claim is not None
    policy = SourcePolicy.objects.create(
        name="Blocked", excluded_domains=["example.com"], created_by=lead
    )
    job = batch_intake.create_job(jsonl(3, bad=(2,)), name="log.jsonl", user=lead, send=False)
    for chunk_id in BatchChunk.objects.filter(job=job).values_list("pk", flat=True):
        batch_running.run_chunk(chunk_id)
    job.refresh_from_db()
    import_job = ImportJob.objects.create(project=project, kind=ImportJob.Kind.ITEMS)
    admin = make_user("admin", "adam")
    # Port 9 (discard) refuses on loopback: "send a test" fails at once, offline.
    rule = AlertRule.objects.create(name="Rate", url="http://127.0.0.1:9/hook", created_by=admin)
    return World(
        lead, annotator, project, claim, str(review.public_id), policy, job, import_job, admin, rule
    )
