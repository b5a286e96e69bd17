"""Expired reviews are invisible at once, in every query, long before any purge."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest
from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.contenttypes.models import ContentType
from django.test import Client

from grounding_app.retention.expiry import policy_for, site_days
from grounding_app.retention.models import RetentionSettings
from grounding_app.reviews import services
from grounding_app.reviews.models import Review
from grounding_app.reviews.services import ReviewFilter

pytestmark = pytest.mark.django_db

DAY = timedelta(days=1)


@pytest.fixture
def admin_client(client: Client, make_user: Callable[..., object]) -> Client:
    """A superuser's client that signs in again whenever asked: sessions last two weeks,
    and these tests move the clock by a month."""
    user = make_user("superuser")
    client.force_login(user)
    client.sign_in_again = lambda: client.force_login(user)  # type: ignore[attr-defined]
    return client


def test_the_period_defaults_to_the_environment_and_the_admin_overrides_it(settings) -> None:
    settings.RETENTION_DAYS = 12
    assert site_days() == 12
    RetentionSettings.objects.create(retention_days=3)
    assert site_days() == 3
    RetentionSettings(retention_days=4).save()  # one row, whatever the caller does
    assert RetentionSettings.objects.get().retention_days == 4 == site_days()


def test_reviews_are_governed_by_their_creation_time() -> None:
    policy = policy_for(Review)
    assert (policy.date_field, policy.project_field, policy.follows) == ("created_at", None, ())


def test_a_review_vanishes_everywhere_the_moment_it_expires(
    clock, make_review: Callable[..., Review], admin_client: Client
) -> None:
    review = make_review("Old answer about O.")
    user = review.created_by
    pages = [
        review.get_absolute_url(),
        f"/admin/reviews/review/{review.pk}/change/",
        f"/admin/reviews/review/{review.pk}/history/",
    ]
    clock.shift(30 * DAY - timedelta(seconds=1))
    admin_client.sign_in_again()
    assert Review.objects.filter(pk=review.pk).exists()
    assert all(admin_client.get(url).status_code == 200 for url in pages)
    assert "Old answer about O." in admin_client.get("/reviews/").content.decode()
    prepared = Review.objects.all()  # built before the moment, evaluated after it

    clock.shift(timedelta(seconds=2))
    assert list(prepared) == []
    assert Review.objects.count() == 0
    assert list(user.reviews.all()) == []  # related managers go through it too
    assert list(services.find_reviews(ReviewFilter(text="Old"))) == []
    assert "Old answer about O." not in admin_client.get("/reviews/").content.decode()
    assert admin_client.get(review.get_absolute_url()).status_code == 404
    changelist = admin_client.get("/admin/reviews/review/").content.decode()
    assert str(review.public_id) not in changelist
    for url in pages[1:]:  # the admin redirects to its index: "does not exist"
        assert admin_client.get(url).status_code == 302
    assert Review._base_manager.filter(pk=review.pk).exists()  # hidden, not yet purged


def test_shortening_the_period_in_the_admin_hides_at_once(
    clock, make_review: Callable[..., Review], admin_client: Client
) -> None:
    review = make_review()
    clock.shift(10 * DAY)
    first = admin_client.get("/admin/retention/retentionsettings/")
    assert first["Location"] == "/admin/retention/retentionsettings/add/"
    response = admin_client.post(first["Location"], {"retention_days": "7"})
    assert response.status_code == 302
    assert not Review.objects.filter(pk=review.pk).exists()
    again = admin_client.get("/admin/retention/retentionsettings/")
    assert again["Location"] == "/admin/retention/retentionsettings/1/change/"
    admin_client.post(again["Location"], {"retention_days": "11"})
    assert Review.objects.filter(pk=review.pk).exists()
    assert admin_client.get("/admin/retention/retentionsettings/add/").status_code == 302
    stale = admin_client.post("/admin/retention/retentionsettings/add/", {"retention_days": "3"})
    assert stale.status_code == 403 and site_days() == 11


def test_the_period_is_at_least_one_day(admin_client: Client) -> None:
    response = admin_client.post("/admin/retention/retentionsettings/add/", {"retention_days": "0"})
    assert response.status_code == 200
    assert "greater than or equal to 1" in response.content.decode()
    assert not RetentionSettings.objects.exists() and site_days() == 30


def test_recent_actions_drop_entries_about_expired_reviews(
    clock, make_review: Callable[..., Review], admin_client: Client
) -> None:
    review = make_review()
    admin_user = admin_client.get("/admin/").wsgi_request.user
    LogEntry.objects.log_actions(admin_user.pk, [review], CHANGE, change_message="Edited.")
    assert str(review) in admin_client.get("/admin/").content.decode()
    clock.shift(31 * DAY)
    admin_client.sign_in_again()
    page = admin_client.get("/admin/").content.decode()
    assert str(review) not in page
    assert LogEntry.objects.filter(
        content_type=ContentType.objects.get_for_model(Review), object_id=str(review.pk)
    ).exists()  # still in the table until the purge
