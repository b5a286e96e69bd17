"""The evidence shown is the evidence that decided (issue 43, item 5): a saved review
marks the words the check returned, each claim's card shows the passages that decided
it with the claim's numbers and names marked, and an imported answer's sentences that
nothing cites are listed."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from django.test import Client

from grounding_app.common.serialize import grounded_from_json
from grounding_app.engine import (
    CheckRequest,
    CheckResponse,
    CitedChunk,
    Claim,
    Fact,
    GroundingEngine,
)
from grounding_app.formats.check_grounding import response_to_json
from grounding_app.formats.from_check import grounded_from_check
from grounding_app.reviews import services
from grounding_app.reviews.models import Review

pytestmark = pytest.mark.django_db

ANSWER = "Lagos is a port. Lagos holds roughly 13 million people."
SECOND = ANSWER.index("Lagos holds")
# What the API marked: not the words a second pass over the same claim would find.
WORDS = ((ANSWER.index("holds"), len(ANSWER) - 1),)
FACTS = (
    Fact("Tokyo is the capital of Japan.", {"title": "Tokyo"}),
    Fact("Lagos is a port. The city proper has about 15 million residents.", {"title": "Lagos"}),
)


def _response() -> CheckResponse:
    return CheckResponse(
        (
            Claim(0, SECOND - 1, ANSWER[: SECOND - 1], True, (0,), 0.9),
            Claim(SECOND, len(ANSWER), ANSWER[SECOND:], True, (), 0.2, unsupported=WORDS),
        ),
        (CitedChunk("Lagos is a port.", 1, {"title": "Lagos"}),),
        0.55,
    )


def _words(review: Review) -> list[str]:
    segment = grounded_from_json(review.result).candidates[0].segments[1]
    return [ANSWER.encode()[a:b].decode() for a, b in segment.unsupported]


def test_a_saved_check_keeps_the_words_the_check_returned(
    reviewer_client: Client,
    reviewer: object,
    fake_engine: GroundingEngine,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(fake_engine, "check", lambda request, *rest: _response())
    review = services.check_and_save(reviewer, CheckRequest(ANSWER, FACTS))
    assert _words(review) == ["holds roughly 13 million people"]
    page = reviewer_client.get(review.get_absolute_url()).content.decode()
    assert '<span class="unsupported-word">holds roughly 13 million people</span>' in page


def test_an_imported_response_of_our_api_keeps_its_words(
    import_payload: Callable[[str], Review], fake_engine: GroundingEngine
) -> None:
    request = {
        "answerCandidate": ANSWER,
        "facts": [{"factText": f.text, "attributes": f.attributes} for f in FACTS],
    }
    ours = import_payload(
        json.dumps({"request": request, "response": response_to_json(_response())})
    )
    assert _words(ours) == ["holds roughly 13 million people"]
    # Another tool's response names no words: our check's lexical pass marks them.
    theirs = response_to_json(_response())
    del theirs["claims"][1]["unsupportedSpans"]
    other = import_payload(json.dumps({"request": request, "response": theirs}))
    assert _words(other) and _words(other) != _words(ours)


TABLE = "| City | Population |\n|---|---|\n| Lagos | 15 million |"


def test_a_table_rows_card_shows_the_passage_holding_its_numbers(
    reviewer_client: Client, reviewer: object
) -> None:
    start = TABLE.index("| Lagos")
    request = CheckRequest(TABLE, FACTS)
    # The row cites the sentence naming Lagos; its number is in the fact's next sentence.
    response = CheckResponse(
        (Claim(start, len(TABLE), TABLE[start:], True, (0,), 0.87),),
        (CitedChunk("Lagos is a port.", 1, {"title": "Lagos"}),),
        0.87,
    )
    review = services.save_review(
        reviewer,
        grounded_from_check(request, response),
        source_format=Review.Format.MANUAL,
        request=request,
        engine_checked=True,
    )
    page = reviewer_client.get(review.get_absolute_url()).content.decode()
    card = page[page.index('<details class="evidence-card"') :]
    card = card[: card.index("</details>")]
    assert '<a href="#c0-src-1">Source 1</a>' in card
    assert (
        '<mark class="ev-mark ev-number" title="A number of the claim">15 million'
        '<span class="sr-only"> (a number of the claim)</span></mark>' in card
    )
    assert "Fact 2" in card and "cited passages do not" in card


def test_an_unsupported_claims_card_is_open_on_the_closest_passage(
    reviewer_client: Client,
    reviewer: object,
    fake_engine: GroundingEngine,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(fake_engine, "check", lambda request, *rest: _response())
    review = services.check_and_save(reviewer, CheckRequest(ANSWER, FACTS))
    page = reviewer_client.get(review.get_absolute_url()).content.decode()
    card = page[page.index('<details class="evidence-card" open>') :]
    card = card[: card.index("</details>")]
    assert "Closest passage in the facts" in card and "Fact 2" in card
    assert '<mark class="ev-mark ev-name" title="A name of the claim">Lagos' in card


def _gemini() -> str:
    text = "Lagos is in Nigeria. It is a port. Lagos holds 15 million people. Abuja is the capital."
    raw = text.encode()
    supports = [
        {
            "segment": {
                "startIndex": raw.index(s.encode()),
                "endIndex": raw.index(s.encode()) + len(s),
            },
            "groundingChunkIndices": [0],
        }
        for s in ("Lagos is in Nigeria.", "Lagos holds 15 million people.")
    ]
    return json.dumps(
        {
            "candidates": [
                {
                    "content": {"parts": [{"text": text}], "role": "model"},
                    "groundingMetadata": {
                        "groundingChunks": [
                            {"web": {"uri": "https://atlas.example/", "title": "atlas"}}
                        ],
                        "groundingSupports": supports,
                    },
                }
            ]
        }
    )


def test_a_gemini_sentence_without_citation_is_listed_and_counted(
    reviewer_client: Client, import_payload: Callable[[str], Review]
) -> None:
    review = import_payload(_gemini())
    page = reviewer_client.get(review.get_absolute_url()).content.decode()
    assert '<li class="badge v-cited">2 cited</li>' in page
    assert '<li class="badge v-uncited">2 without citation</li>' in page
    rows = page[page.index('<table class="claims">') : page.index("</table>")]
    assert rows.count('class="claim-row v-uncited"') == 2
    assert rows.index("It is a port.") < rows.index("Lagos holds 15 million people.")
    assert '<span class="badge v-uncited">No citation</span>' in rows
