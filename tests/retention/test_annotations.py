"""Annotation data expires too: by its project's own period where set, else the site's,
and never later than the review it was sent from; the purge deletes it with its labels."""

from __future__ import annotations

import io
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client

from grounding_app.annotations import exports
from grounding_app.annotations.allocation import next_assignment
from grounding_app.annotations.items import create_project, import_jsonl, send_review
from grounding_app.annotations.labels import ClaimState, submit
from grounding_app.annotations.models import (
    Assignment,
    ClaimLabel,
    Item,
    ItemClaim,
    LabelingProject,
)
from grounding_app.retention.models import Purge
from grounding_app.reviews.models import Review
from tests.annotations.conftest import film_jsonl

pytestmark = pytest.mark.django_db

DAY = timedelta(days=1)


@pytest.fixture
def make_labeled_project(
    fake_engine: object, make_user: Callable[..., Any]
) -> Callable[..., LabelingProject]:
    """A project of two film items, the first one labeled and submitted."""
    lead = make_user("reviewer")
    annotator = make_user("annotator")

    def make(retention_days: int | None = None) -> LabelingProject:
        project = create_project(
            lead,
            name=f"Project keeping {retention_days or 'site'} days",
            instructions="",
            extra_labels=(),
            overlap=1,
            blind=False,
            annotators=[annotator],
        )
        project.retention_days = retention_days
        project.save()
        import_jsonl(project, film_jsonl(2))
        assignment = next_assignment(project, annotator)
        states = {
            claim.pk: ClaimState("supported", (0,), "") for claim in assignment.item.claims.all()
        }
        submit(assignment, states)
        return project

    return make


def visible(project: LabelingProject) -> dict[str, int]:
    return {
        "items": Item.objects.filter(project=project).count(),
        "claims": ItemClaim.objects.filter(item__project=project).count(),
        "assignments": Assignment.objects.filter(item__project=project).count(),
        "labels": ClaimLabel.objects.filter(claim__item__project=project).count(),
        "export lines": len(list(exports.item_lines(project))),
    }


def test_items_follow_their_project_period_else_the_site_period(
    clock, make_labeled_project: Callable[..., LabelingProject]
) -> None:
    short = make_labeled_project(retention_days=5)
    site = make_labeled_project()
    long = make_labeled_project(retention_days=90)
    full = visible(site)
    assert full["items"] == 2 and full["labels"] >= 1 and full["export lines"] == 2

    clock.shift(6 * DAY)
    assert visible(short) == dict.fromkeys(full, 0)
    assert visible(site) == full and visible(long) == full

    clock.shift(25 * DAY)
    assert visible(site) == dict.fromkeys(full, 0)
    assert visible(long) == full


def test_an_item_sent_from_a_review_goes_with_the_review(
    clock, make_review: Callable[..., Review], make_labeled_project: Callable[..., Any]
) -> None:
    project = make_labeled_project(retention_days=90)
    review = make_review("Titanic was directed by James Cameron.")
    item = send_review(project, review)
    clock.shift(31 * DAY)
    assert not Item.objects.filter(pk=item.pk).exists()
    assert Item.objects.filter(project=project).count() == 2  # the imported ones stay


def test_the_purge_deletes_expired_items_with_everything_hanging_off_them(
    clock, make_labeled_project: Callable[..., LabelingProject], make_review
) -> None:
    short = make_labeled_project(retention_days=5)
    site = make_labeled_project()
    sent = send_review(site, make_review())
    claims_of_short = ItemClaim.objects.filter(item__project=short).count()
    labels_of_short = ClaimLabel.objects.filter(claim__item__project=short).count()
    clock.shift(6 * DAY)

    out = io.StringIO()
    call_command("purge_expired", stdout=out)
    counts = Purge.objects.get().counts
    assert counts == {
        "annotations.Assignment": 1,
        "annotations.ClaimLabel": labels_of_short,
        "annotations.Item": 2,
        "annotations.ItemClaim": claims_of_short,
    }
    assert f"  {claims_of_short} item claims\n" in out.getvalue()
    assert LabelingProject.objects.filter(pk=short.pk).exists()  # projects are kept
    assert Item._base_manager.filter(project=short).count() == 0
    assert Item._base_manager.filter(project=site).count() == 3

    clock.shift(25 * DAY)
    call_command("purge_expired", stdout=io.StringIO())
    counts = Purge.objects.first().counts
    assert counts["reviews.Review"] == 1 and counts["annotations.Item"] == 3
    assert not Item._base_manager.filter(pk=sent.pk).exists()


def test_new_items_after_expiry_take_fresh_positions(
    clock, make_labeled_project: Callable[..., LabelingProject]
) -> None:
    project = make_labeled_project(retention_days=5)
    clock.shift(6 * DAY)
    import_jsonl(project, film_jsonl(2))  # expired items still hold 0 and 1
    positions = sorted(
        Item._base_manager.filter(project=project).values_list("position", flat=True)
    )
    assert positions == [0, 1, 2, 3]


def test_the_retention_page_lists_project_periods(
    client: Client, make_user: Callable[..., Any], make_labeled_project: Callable[..., Any]
) -> None:
    make_labeled_project(retention_days=5)
    client.force_login(make_user("superuser"))
    page = client.get("/admin/retention/retentionsettings/", follow=True).content.decode()
    assert "Project keeping 5 days: 5 days" in page
