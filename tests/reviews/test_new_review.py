"""New review: the form runs the engine, saves the review, and works with and without htmx."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client

from grounding_app.engine import GroundingEngine
from grounding_app.reviews.models import Review

pytestmark = pytest.mark.django_db

FACT = "Titanic is a 1997 movie. It was directed by James Cameron."
ANSWER = "Here is what I found. Titanic was directed by James Cameron. It starred Brad Pitt."
HTMX = {"HTTP_HX_REQUEST": "true"}


def form(**extra: str) -> dict[str, str]:
    data = {
        "answer": ANSWER,
        "citation_threshold": "0.6",
        "fact-0-text": FACT,
        "fact-0-key-0": "author",
        "fact-0-value-0": "Simple Wikipedia",
        "fact-0-key-1": "",
        "fact-0-value-1": "",
        "fact-1-text": "",
        "fact-2-text": "",
    }
    data.update(extra)
    return data


def test_blank_form_has_fixed_fact_rows_for_no_js(reviewer_client: Client) -> None:
    page = reviewer_client.get("/reviews/new/").content.decode()
    for i in range(3):
        assert f'name="fact-{i}-text"' in page
        assert f'name="fact-{i}-key-0"' in page and f'name="fact-{i}-value-1"' in page
    assert 'name="fact-3-text"' not in page
    # JavaScript copies these templates to add rows; the buttons are hidden without it.
    assert 'id="fact-row-template"' in page and 'name="fact-__i__-text"' in page
    assert 'data-action="add-fact"' in page and "js-only" in page
    assert 'name="facts_json"' in page and 'name="citation_threshold"' in page


def test_full_page_post_saves_and_redirects_to_the_permalink(
    reviewer_client: Client, reviewer: object, fake_engine: GroundingEngine
) -> None:
    response = reviewer_client.post("/reviews/new/", form())
    review = Review.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/reviews/{review.public_id}/"
    assert review.answer == ANSWER
    assert review.facts == [{"factText": FACT, "attributes": {"author": "Simple Wikipedia"}}]
    assert review.citation_threshold == 0.6
    assert review.created_by == reviewer and review.created_at is not None
    assert review.engine_checked and review.source_format == "manual"
    assert review.claim_count == 2  # "Here is what I found." is shown, not counted
    assert review.summary in {"supported", "partial", "unsupported"}
    page = reviewer_client.get(response["Location"]).content.decode()
    assert "Titanic was directed by James Cameron." in page
    assert "Greeting — not checked" in page


def test_htmx_post_swaps_in_the_result_partial(
    reviewer_client: Client, fake_engine: GroundingEngine
) -> None:
    response = reviewer_client.post("/reviews/new/", form(), **HTMX)
    review = Review.objects.get()
    body = response.content.decode()
    assert response.status_code == 200
    assert response["HX-Push-Url"] == f"/reviews/{review.public_id}/"
    assert body.lstrip().startswith('<article class="review"')
    assert "<html" not in body and '<form id="review-form"' not in body
    assert 'class="answer-part"' in body


def test_facts_as_a_json_array(reviewer_client: Client, fake_engine: GroundingEngine) -> None:
    facts = [{"factText": FACT, "attributes": {"author": "W"}}, {"fact_text": "Other."}]
    data = form(**{"fact-0-text": "", "fact-0-key-0": "", "fact-0-value-0": ""})
    data["facts_json"] = json.dumps(facts)
    assert reviewer_client.post("/reviews/new/", data).status_code == 302
    assert Review.objects.get().facts == [
        {"factText": FACT, "attributes": {"author": "W"}},
        {"factText": "Other.", "attributes": {}},
    ]


def test_rows_keep_their_order_and_skip_blank_ones(
    reviewer_client: Client, fake_engine: GroundingEngine
) -> None:
    data = form(**{"fact-7-text": "Seventh.", "fact-12-text": "Twelfth.", "fact-12-key-3": "k"})
    data["fact-12-value-3"] = "v"
    assert reviewer_client.post("/reviews/new/", data).status_code == 302
    assert [f["factText"] for f in Review.objects.get().facts] == [FACT, "Seventh.", "Twelfth."]
    assert Review.objects.get().facts[2]["attributes"] == {"k": "v"}


def test_textarea_line_breaks_are_normalised(
    reviewer_client: Client, fake_engine: GroundingEngine
) -> None:
    reviewer_client.post("/reviews/new/", form(answer="One.\r\nTwo."))
    assert Review.objects.get().answer == "One.\nTwo."


def errors_of(html: str) -> str:
    return " ".join(re.findall(r'class="errors"[^>]*>(.*?)</div>', html, re.S))


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"answer": ""}, "This field is required."),
        ({"citation_threshold": "1.5"}, "less than or equal to 1"),
        ({"citation_threshold": "x"}, "Enter a number."),
        (
            {"fact-0-key-0": ""},
            "Fact 1: the attribute value &#x27;Simple Wikipedia&#x27; has no name.",
        ),
        (
            {"fact-0-key-1": "author", "fact-0-value-1": "x"},
            "Fact 1: the attribute &#x27;author&#x27; is given twice.",
        ),
        ({"fact-0-text": " "}, "Fact 1: the fact text is empty."),
        (
            {"fact-1-text": "y" * 10_001},
            "Fact 2.factText: a fact may be at most 10000 characters long",
        ),
        ({"facts_json": "[1,"}, "Invalid JSON payload received."),
        ({"facts_json": "[]"}, "Give the facts as rows or as JSON, not both at once."),
        ({"answer": "word " * 4_100}, "the answer may be at most 4096 tokens long"),
        ({"answer": "a\x00b"}, "Null characters are not allowed."),
        ({"fact-0-text": "a\x00b"}, "Fact 1: Null characters (U+0000) cannot be stored."),
        ({"fact-0-value-0": "\x00"}, "Fact 1: Null characters (U+0000) cannot be stored."),
        ({"facts_json": '[{"factText": "a\\u0000b"}]'}, "Null characters (U+0000) cannot be"),
    ],
)
def test_bad_input_comes_back_with_a_message(
    reviewer_client: Client, changes: dict[str, str], message: str
) -> None:
    response = reviewer_client.post("/reviews/new/", form(**changes))
    assert response.status_code == 200
    assert message in errors_of(response.content.decode())
    assert not Review.objects.exists()


def test_json_fact_errors_name_the_field(reviewer_client: Client) -> None:
    data = form(**{"fact-0-text": "", "fact-0-key-0": "", "fact-0-value-0": ""})
    data["facts_json"] = json.dumps([{"factText": "ok"}, {"factText": 5}])
    response = reviewer_client.post("/reviews/new/", data)
    assert "[1].factText: expected a string, got a number." in errors_of(response.content.decode())


def test_htmx_errors_replace_the_form_and_keep_what_was_typed(reviewer_client: Client) -> None:
    response = reviewer_client.post(
        "/reviews/new/", form(answer="", **{"fact-5-text": "kept <b>"}), **HTMX
    )
    body = response.content.decode()
    assert response["HX-Retarget"] == "#review-form" and response["HX-Reswap"] == "outerHTML"
    assert body.lstrip().startswith('<form id="review-form"')
    assert "This field is required." in body
    assert "kept &lt;b&gt;</textarea>" in body
    assert 'value="Simple Wikipedia"' in body


@pytest.mark.parametrize("threshold", ["\u0660.\u0665", "\uff10.5", "1_0", "0x1", " 0.5e"])
def test_the_threshold_is_a_plain_ascii_number(
    reviewer_client: Client, fake_engine: object, threshold: str
) -> None:
    response = reviewer_client.post(
        "/reviews/new/",
        {
            "answer": "Paris is the capital of France.",
            "fact-0-text": "Paris is the capital of France.",
            "citation_threshold": threshold,
        },
    )
    assert response.status_code == 200
    assert "Enter a number." in response.content.decode()
    assert not Review.objects.exists()
