"""Review round 4 (issue 32): an imported answer, which brings citations but no verdicts,
can be checked by our engine against its sources; a review without facts says so."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from django.test import Client

from grounding_app.engine import MAX_FACTS, CheckRequest, GroundingEngine
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


def _gemini(sentences: int = 0, sources: int = 0) -> str:
    """The Gemini fixture with sentences added after its cited ones, or more sources."""
    data = json.loads(fixture_text("gemini_retrieved_context.json"))
    candidate = data["candidates"][0]
    part = candidate["content"]["parts"][0]
    part["text"] += "".join(f" Badges open door {n} of the east wing." for n in range(sentences))
    chunks = candidate["groundingMetadata"]["groundingChunks"]
    chunks += [
        {"retrievedContext": {"uri": f"gs://x/{n}", "text": f"Door {n}."}} for n in range(sources)
    ]
    return json.dumps(data)


@pytest.mark.parametrize(
    ("payload", "why"),
    [
        (_gemini(sentences=4_000), "the answer may be at most 65536 bytes long in UTF-8"),
        (_gemini(sources=MAX_FACTS), f"at most {MAX_FACTS} facts are allowed"),
    ],
)
def test_an_answer_past_the_apis_limits_is_not_checked_and_the_page_says_why(
    reviewer_client: Client,
    import_payload: Callable[[str], Review],
    fake_engine: GroundingEngine,
    payload: str,
    why: str,
) -> None:
    """Issue 44 item 8: an imported answer of 216 KB (4,000 sentences) was checked whole
    and held the worker past its timeout; the API's limits apply here too."""
    imported = import_payload(payload)
    response = reviewer_client.post(f"/reviews/{imported.public_id}/engine-check/", follow=True)
    assert response.redirect_chain[-1][0] == imported.get_absolute_url()
    page = response.content.decode()
    assert "Our engine did not check this answer" in page and why in page
    assert Review.objects.count() == 1
