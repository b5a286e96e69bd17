"""Review round 4 (issue 32): an imported answer, which brings citations but no verdicts,
can be checked by our engine against its sources; a review without facts says so."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.test import Client

from grounding_app.engine import CheckRequest, GroundingEngine
from grounding_app.reviews import services
from grounding_app.reviews.models import Review
from tests.reviews.conftest import fixture_text

pytestmark = pytest.mark.django_db


def test_an_imported_gemini_answer_can_be_checked_with_the_engine(
    reviewer_client: Client,
    import_payload: Callable[[str], Review],
    fake_engine: GroundingEngine,
) -> None:
    imported = import_payload(fixture_text("gemini_retrieved_context.json"))
    assert imported.summary == Review.Summary.NO_VERDICT and not imported.engine_checked
    page = reviewer_client.get(imported.get_absolute_url()).content.decode()
    assert "Check with the engine" in page
    response = reviewer_client.post(f"/reviews/{imported.public_id}/engine-check/")
    assert response.status_code == 302
    checked = Review.objects.get(public_id=response["Location"].split("/")[-2])
    assert checked.engine_checked and checked.rechecked_from == imported
    assert checked.summary != Review.Summary.NO_VERDICT and checked.support_score is not None
    assert checked.facts  # the sources with text, kept as the facts it was checked on
    shown = reviewer_client.get(checked.get_absolute_url()).content.decode()
    assert "Check with the engine" not in shown
    assert reviewer_client.get(f"/reviews/{imported.public_id}/engine-check/").status_code == 405


def test_a_review_checked_without_facts_says_so_instead_of_listing_words(
    reviewer_client: Client, reviewer: object, fake_engine: GroundingEngine
) -> None:
    review = services.check_and_save(reviewer, CheckRequest("The moon is made of cheese.", ()))
    page = reviewer_client.get(review.get_absolute_url()).content.decode()
    assert "Not in the evidence" not in page
    assert "No facts were given." in page
