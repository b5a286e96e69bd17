"""Import: every kind renders, a given response is shown as is, errors name the field."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from grounding_app.engine import GroundingEngine
from grounding_app.reviews.models import Review
from tests.reviews.conftest import IMPORTS, fixture_text

pytestmark = pytest.mark.django_db

Import = Callable[[str], Review]


@pytest.fixture
def no_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail loudly if anything runs the engine."""

    def refuse(request: object) -> None:
        raise AssertionError("the engine must not run here")

    monkeypatch.setattr("grounding_app.active_verifier.checker.Checker.check", refuse)


@pytest.mark.parametrize("path", sorted(IMPORTS.glob("*.json")), ids=lambda p: p.stem)
def test_every_fixture_imports_and_renders(
    path: object, import_payload: Import, reviewer_client: Client, fake_engine: GroundingEngine
) -> None:
    review = import_payload(path.read_text(encoding="utf-8"))
    page = reviewer_client.get(review.get_absolute_url())
    assert page.status_code == 200
    assert re.search(r'class="answer-part" dir="(ltr|rtl|auto)"', page.content.decode())
    assert review.raw_payload == path.read_text(encoding="utf-8")


def test_check_grounding_pair_is_shown_as_given(
    import_payload: Import, reviewer_client: Client, no_engine: None
) -> None:
    review = import_payload(fixture_text("check_grounding_pair.json"))
    assert review.source_format == "check_grounding" and not review.engine_checked
    assert review.support_score == pytest.approx(0.4952)
    assert review.summary == "partial"
    page = reviewer_client.get(review.get_absolute_url()).content.decode()
    assert "as imported" in page
    assert "Re-check with our engine" in page
    assert ">0.50</span>" in page  # the given support score, not ours
    assert "Simple Wikipedia" in page


def test_recheck_runs_our_engine_and_saves_a_new_review(
    import_payload: Import, reviewer_client: Client, fake_engine: GroundingEngine
) -> None:
    given = import_payload(fixture_text("check_grounding_pair.json"))
    response = reviewer_client.post(f"/reviews/{given.public_id}/recheck/")
    new = Review.objects.exclude(pk=given.pk).get()
    assert response.status_code == 302 and response["Location"] == new.get_absolute_url()
    assert new.engine_checked and new.rechecked_from == given
    assert (new.answer, new.facts, new.citation_threshold) == (
        given.answer,
        given.facts,
        given.citation_threshold,
    )
    page = reviewer_client.get(new.get_absolute_url()).content.decode()
    assert "checked by our engine" in page and "re-check of" in page


def test_recheck_is_only_for_check_grounding(
    import_payload: Import, reviewer_client: Client
) -> None:
    review = import_payload(fixture_text("gemini_web_search.json"))
    page = reviewer_client.get(review.get_absolute_url()).content.decode()
    assert "Re-check with our engine" not in page
    assert reviewer_client.post(f"/reviews/{review.public_id}/recheck/").status_code == 404


def test_request_alone_is_checked_with_our_engine(
    import_payload: Import, fake_engine: GroundingEngine
) -> None:
    review = import_payload(fixture_text("check_grounding_request.json"))
    assert review.engine_checked and review.source_format == "check_grounding"
    assert review.claim_count > 0 and review.facts


def test_upload_a_file(reviewer_client: Client) -> None:
    upload = SimpleUploadedFile(
        "agent.json", (IMPORTS / "agent_session_output.json").read_bytes(), "application/json"
    )
    response = reviewer_client.post("/reviews/import/", {"file": upload})
    review = Review.objects.get()
    assert response.status_code == 302 and review.source_format == "agent"


def test_htmx_import_swaps_in_the_result(reviewer_client: Client) -> None:
    response = reviewer_client.post(
        "/reviews/import/",
        {"payload": fixture_text("gemini_web_search.json")},
        HTTP_HX_REQUEST="true",
    )
    review = Review.objects.get()
    assert response["HX-Push-Url"] == review.get_absolute_url()
    assert "suggestions-frame" in response.content.decode()


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ("", "Paste JSON or choose a file to upload."),
        ("{", "not valid JSON: Expecting property name enclosed in double quotes"),
        ("[]", "the array is empty"),
        ('{"claims": []}', "a check-grounding response alone cannot be shown"),
        ('{"answerCandidate": 5}', "answerCandidate: expected a string, got a number."),
        (
            '{"request": {"answerCandidate": "A."}, "response": {"claims": [{"startPos": "x"}]}}',
            "response.claims[0].startPos",
        ),
        ('{"candidates": [{"content": {"parts": "no"}}]}', "candidates[0].content.parts"),
        ('[{"citations": {"citedChunks": 3}}]', "[0].citations.citedChunks"),
    ],
)
def test_bad_imports_come_back_with_the_field_named(
    reviewer_client: Client, payload: str, message: str
) -> None:
    for headers in ({}, {"HTTP_HX_REQUEST": "true"}):
        response = reviewer_client.post("/reviews/import/", {"payload": payload}, **headers)
        assert response.status_code == 200
        assert message in response.content.decode()
    assert not Review.objects.exists()


@pytest.mark.parametrize("upload", [False, True])
def test_a_null_character_is_refused_on_every_database(
    reviewer_client: Client, fake_engine: GroundingEngine, upload: bool
) -> None:
    """PostgreSQL stores NUL in neither text nor jsonb; the form says so before a save fails."""
    payload = json.dumps({"answerCandidate": "A\x00B.", "facts": [{"factText": "A."}]})
    data = {"file": SimpleUploadedFile("x.json", payload.encode())} if upload else {}
    response = reviewer_client.post("/reviews/import/", data or {"payload": payload})
    assert response.status_code == 200
    assert "Null characters (U+0000) cannot be stored." in response.content.decode()
    assert not Review.objects.exists()


def test_an_escaped_backslash_before_u0000_is_no_null_character(
    reviewer_client: Client, fake_engine: GroundingEngine
) -> None:
    payload = json.dumps({"answerCandidate": "A\\u0000B.", "facts": [{"factText": "A."}]})
    response = reviewer_client.post("/reviews/import/", {"payload": payload})
    assert response.status_code == 302
    assert Review.objects.get().answer == "A\\u0000B."


def test_paste_and_upload_together_is_refused(reviewer_client: Client) -> None:
    upload = SimpleUploadedFile("x.json", b"[]")
    response = reviewer_client.post("/reviews/import/", {"payload": "[]", "file": upload})
    assert "Paste JSON or upload a file, not both." in response.content.decode()


def test_upload_that_is_not_utf8_is_refused(reviewer_client: Client) -> None:
    upload = SimpleUploadedFile("x.json", b'{"answerCandidate": "\xff"}')
    response = reviewer_client.post("/reviews/import/", {"file": upload})
    assert response.status_code == 200 and "not UTF-8" in response.content.decode()


def test_parser_problems_are_listed_on_the_page(
    import_payload: Import, reviewer_client: Client
) -> None:
    data = json.loads(fixture_text("gemini_hebrew.json"))
    supports = data["candidates"][0]["groundingMetadata"]["groundingSupports"]
    supports[0]["segment"]["endIndex"] = 3  # inside the second Hebrew letter
    supports[0]["segment"].pop("text", None)
    review = import_payload(json.dumps(data, ensure_ascii=False))
    page = reviewer_client.get(review.get_absolute_url()).content.decode()
    assert "Problems in the input" in page
    assert "groundingSupports[0].segment.endIndex" in page
    assert "falls inside a multi-byte UTF-8 character" in page
