"""The reviews list: newest first, search, filters, pages."""

from __future__ import annotations

import datetime as dt
import importlib
import re
from urllib.parse import urlencode

import pytest
from django.apps import apps as django_apps
from django.test import Client
from django.utils import timezone

from grounding_app.formats.grounded import Candidate, GroundedAnswer, Segment
from grounding_app.reviews import services
from grounding_app.reviews.models import Review
from grounding_app.reviews.views import PAGE_SIZE

pytestmark = pytest.mark.django_db


def make(
    user: object,
    answer: str,
    verdicts: tuple[str, ...] = ("supported",),
    score: float | None = 0.9,
    fmt: str = "gemini",
    days_ago: int = 0,
) -> Review:
    segments = tuple(Segment(0, 0, 1, "", (), v) for v in verdicts)  # type: ignore[arg-type]
    grounded = GroundedAnswer(
        format="gemini",
        candidates=(Candidate(parts=(answer,), segments=segments, support_score=score),),
    )
    review = services.save_review(user, grounded, source_format=fmt)
    review.created_at = timezone.now() - dt.timedelta(days=days_ago)
    review.save(update_fields=["created_at"])
    return review


def answers(client: Client, query: str = "") -> list[str]:
    page = client.get(f"/reviews/?{query}").content.decode()
    return re.findall(r'<td class="excerpt" dir="auto"><a href="[^"]+">([^<]*)</a>', page)


def test_summary_verdicts() -> None:
    def summary(*verdicts: str) -> str:
        segments = tuple(Segment(0, 0, 0, "", (), v) for v in verdicts)  # type: ignore[arg-type]
        grounded = GroundedAnswer("gemini", (Candidate(parts=("",), segments=segments),))
        return services.summarize(grounded)[0]

    assert summary("supported", "no_check") == "supported"
    assert summary("supported", "unsupported") == "partial"
    assert summary("unsupported", "no_check") == "unsupported"
    assert summary("no_check") == summary() == summary(None) == "no_verdict"  # type: ignore[arg-type]


def test_newest_first(reviewer_client: Client, reviewer: object) -> None:
    make(reviewer, "old", days_ago=3)
    make(reviewer, "new", days_ago=0)
    make(reviewer, "middle", days_ago=1)
    assert answers(reviewer_client) == ["new", "middle", "old"]


def test_text_search_covers_answer_and_source_titles(
    reviewer_client: Client, reviewer: object
) -> None:
    make(reviewer, "Paris is the capital of France")
    make(reviewer, "ירושלים היא בירת ישראל")
    make(reviewer, "Berlin is big")
    assert answers(reviewer_client, "q=capital+paris") == ["Paris is the capital of France"]
    assert answers(reviewer_client, "q=ישראל") == ["ירושלים היא בירת ישראל"]
    assert answers(reviewer_client, "q=nothing") == []


def test_filters(reviewer_client: Client, reviewer: object) -> None:
    make(reviewer, "good", ("supported",), 0.95, "manual", days_ago=0)
    make(reviewer, "mixed", ("supported", "unsupported"), 0.5, "check_grounding", days_ago=5)
    make(reviewer, "bad", ("unsupported",), 0.1, "agent", days_ago=10)
    make(reviewer, "web", (), None, "gemini", days_ago=20)
    assert answers(reviewer_client, "summary=partial") == ["mixed"]
    assert answers(reviewer_client, "summary=no_verdict") == ["web"]
    assert answers(reviewer_client, "source_format=agent") == ["bad"]
    assert answers(reviewer_client, "min_score=0.4") == ["good", "mixed"]
    assert answers(reviewer_client, "min_score=0.4&max_score=0.6") == ["mixed"]
    today = timezone.now().date()
    week_ago = (today - dt.timedelta(days=7)).isoformat()
    assert answers(reviewer_client, f"date_from={week_ago}") == ["good", "mixed"]
    assert answers(reviewer_client, f"date_to={week_ago}") == ["bad", "web"]
    # A mistyped filter is reported and ignored rather than hiding everything.
    page = reviewer_client.get("/reviews/?min_score=lots").content.decode()
    assert "Score ≥: Enter a number." in page
    assert answers(reviewer_client, "min_score=lots") == ["good", "mixed", "bad", "web"]


def test_pagination_keeps_the_filters(reviewer_client: Client, reviewer: object) -> None:
    for i in range(PAGE_SIZE + 3):
        make(reviewer, f"answer {i:02}", days_ago=i)
    first = reviewer_client.get("/reviews/?q=answer").content.decode()
    assert len(answers(reviewer_client, "q=answer")) == PAGE_SIZE
    assert "Page 1 of 2" in first and 'href="?q=answer&amp;page=2"' in first
    assert answers(reviewer_client, "q=answer&page=2") == [
        f"answer {i:02}" for i in range(PAGE_SIZE, PAGE_SIZE + 3)
    ]


def test_htmx_filtering_returns_only_the_results(reviewer_client: Client, reviewer: object) -> None:
    make(reviewer, "one")
    response = reviewer_client.get("/reviews/?q=one", HTTP_HX_REQUEST="true")
    body = response.content.decode()
    assert body.lstrip().startswith('<div id="review-results">')
    assert "<html" not in body and "one" in body


def test_delete_buttons_only_where_allowed(
    reviewer_client: Client, reviewer: object, make_user: object
) -> None:
    mine = make(reviewer, "mine")
    theirs = make(make_user("reviewer", "other"), "theirs")
    page = reviewer_client.get("/reviews/").content.decode()
    assert f"/reviews/{mine.public_id}/delete/" in page
    assert f"/reviews/{theirs.public_id}/delete/" not in page


def test_search_ignores_accents_and_case(reviewer_client: Client, reviewer: object) -> None:
    make(reviewer, "Kylian Mbappé scored twice")
    make(reviewer, "The office is on Hauptstraße")
    make(reviewer, "İstanbul is on the Bosphorus")
    make(reviewer, "בְּרֵאשִׁית בָּרָא")
    make(reviewer, "Mbappe without the accent")
    assert answers(reviewer_client, "q=mbappe") == [
        "Mbappe without the accent",
        "Kylian Mbappé scored twice",
    ]
    assert answers(reviewer_client, "q=MBAPPÉ+scored") == ["Kylian Mbappé scored twice"]
    assert answers(reviewer_client, "q=HAUPTSTRASSE") == ["The office is on Hauptstraße"]
    assert answers(reviewer_client, "q=straße") == ["The office is on Hauptstraße"]
    assert answers(reviewer_client, "q=istanbul") == ["İstanbul is on the Bosphorus"]
    assert answers(reviewer_client, "q=בראשית") == ["בְּרֵאשִׁית בָּרָא"]
    assert answers(reviewer_client, "q=%25") == []  # LIKE wildcards are matched literally
    assert answers(reviewer_client, "q=_") == []


def test_the_migration_folds_the_search_text_of_saved_reviews(reviewer: object) -> None:
    review = make(reviewer, "Kylian Mbappé")
    Review.objects.filter(pk=review.pk).update(search_text="Kylian Mbappé")
    migration = importlib.import_module("grounding_app.reviews.migrations.0002_fold_search_text")
    migration.fold_search_text(django_apps, None)
    review.refresh_from_db()
    assert review.search_text == "kylian mbappe"
    assert services.find_reviews(services.ReviewFilter(text="MBAPPE")).get() == review


@pytest.mark.parametrize(
    ("q", "message"),
    [
        ("x" * 100_000, "Ensure this value has at most 500 characters"),
        ("a " * 51, "Search for at most 50 words."),
        ("\ufdfa" * 20, "Search for at most 50 words."),  # one sign, four words when folded
    ],
)
def test_a_search_too_long_for_the_database_is_reported_and_ignored(
    reviewer_client: Client, reviewer: object, q: str, message: str
) -> None:
    make(reviewer, "Paris")
    response = reviewer_client.get("/reviews/", {"q": q})
    assert response.status_code == 200 and message in response.content.decode()
    assert answers(reviewer_client, urlencode({"q": q})) == ["Paris"]


def test_an_empty_list_says_whether_a_filter_hides_reviews(reviewer_client: Client) -> None:
    # Issue 44, item 19: "No reviews match" with no filter set read as a broken search.
    page = reviewer_client.get("/reviews/").content.decode()
    assert "No reviews match" not in page
    assert "No reviews yet." in page and 'href="/reviews/import/"' in page
    filtered = reviewer_client.get("/reviews/?summary=supported").content.decode()
    assert "No reviews match these filters." in filtered and "No reviews yet" not in filtered
