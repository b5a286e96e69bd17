"""A claim read with earlier sentences says so where reviewers read it (issue 43, item 1):
the API's `contextClaimIndices` become the sentences quoted under the claim, kept when the
review is saved and read back."""

from __future__ import annotations

import pytest
from django.test import Client

from grounding_app.common.serialize import grounded_from_json, grounded_to_json
from grounding_app.engine import (
    CheckRequest,
    CheckResponse,
    CitedChunk,
    Claim,
    Fact,
    GroundingEngine,
)
from grounding_app.formats.from_check import grounded_from_check
from grounding_app.reviews import services

pytestmark = pytest.mark.django_db

ANSWER = "Die Frauenkirche in Dresden wurde 1726 begonnen. It was completed in 1743."
SECOND = len(ANSWER[: ANSWER.index("It")].encode())
FACTS = (Fact("The Frauenkirche in Dresden was begun in 1726. It was completed in 1743."),)


def _response() -> CheckResponse:
    first = ANSWER[: ANSWER.index("It") - 1]
    return CheckResponse(
        (
            Claim(0, len(first.encode()), first, True, (0,), 0.9),
            Claim(
                SECOND,
                len(ANSWER.encode()),
                ANSWER[ANSWER.index("It") :],
                True,
                (0,),
                0.95,
                context_claims=(0,),
            ),
        ),
        (CitedChunk(FACTS[0].text, 0, {}),),
        0.92,
    )


def test_the_spans_a_claim_was_read_with_survive_saving() -> None:
    grounded = grounded_from_check(CheckRequest(ANSWER, FACTS), _response())
    segments = grounded.candidates[0].segments
    assert segments[0].read_with == ()
    first_bytes = len(ANSWER[: ANSWER.index("It") - 1].encode())
    assert segments[1].read_with == ((0, first_bytes),)
    assert grounded_from_json(grounded_to_json(grounded)) == grounded


def test_a_stored_review_without_it_reads_as_read_alone() -> None:
    stored = grounded_to_json(grounded_from_check(CheckRequest(ANSWER, FACTS), _response()))
    for segment in stored["candidates"][0]["segments"]:
        del segment["read_with"]
    assert all(s.read_with == () for s in grounded_from_json(stored).candidates[0].segments)


def test_the_page_quotes_the_sentence_a_claim_was_read_with(
    reviewer_client: Client,
    reviewer: object,
    fake_engine: GroundingEngine,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(fake_engine, "check", lambda request, *rest: _response())
    review = services.check_and_save(reviewer, CheckRequest(ANSWER, FACTS))
    page = reviewer_client.get(review.get_absolute_url()).content.decode()
    assert page.count('class="context-note"') == 1
    note = page[page.index('class="context-note"') :]
    note = note[: note.index("</span>", note.index("</bdi>"))]
    assert "Read with “<bdi>Die Frauenkirche in Dresden wurde 1726 begonnen.</bdi>”" in note


def test_a_quoted_sentence_is_shown_without_its_markdown(
    reviewer_client: Client,
    reviewer: object,
    fake_engine: GroundingEngine,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Issue 44, item 13: the quote is one line of the sentence's text, never its syntax.
    first = "**Die Frauenkirche** in [Dresden](https://example.org/dd) <b>wurde</b> 1726 begonnen."
    answer = f"{first} It was completed in 1743."
    start = len(first.encode()) + 1
    response = CheckResponse(
        (
            Claim(0, len(first.encode()), first, True, (0,), 0.9),
            Claim(
                start,
                len(answer.encode()),
                answer[len(first) + 1 :],
                True,
                (0,),
                0.95,
                context_claims=(0,),
            ),
        ),
        (CitedChunk(FACTS[0].text, 0, {}),),
        0.92,
    )
    monkeypatch.setattr(fake_engine, "check", lambda request, *rest: response)
    review = services.check_and_save(reviewer, CheckRequest(answer, FACTS))
    page = reviewer_client.get(review.get_absolute_url()).content.decode()
    note = page[page.index('class="context-note"') :]
    note = note[: note.index("</span>", note.index("</bdi>"))]
    quoted = "Die Frauenkirche in Dresden &lt;b&gt;wurde&lt;/b&gt; 1726 begonnen."
    assert f"Read with “<bdi>{quoted}</bdi>”" in note
