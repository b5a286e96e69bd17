"""Paste -> check -> markers after the right sentences, with and without JavaScript."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from grounding_app.engine import GroundingEngine
from grounding_app.reviews.models import Review
from tests.browser.conftest import Session

pytestmark = pytest.mark.django_db(transaction=True)

# Text before each marker in an answer part: annotations (markers, attributions,
# screen-reader verdicts) are skipped so that only the answer's own text counts.
READ_MARKERS = """(root) => {
  const markers = [];
  let text = "";
  const walk = (node) => {
    for (const child of node.childNodes) {
      if (child.nodeType === Node.TEXT_NODE) { text += child.data; continue; }
      if (child.nodeType !== Node.ELEMENT_NODE) continue;
      if (child.tagName === "SUP") { markers.push(text); continue; }
      if (child.classList.contains("ann")) continue;
      walk(child);
    }
  };
  walk(root);
  return {text, markers, direction: getComputedStyle(root).direction};
}"""

ANSWERS = {
    "english": [
        "Titanic was directed by James Cameron.",
        "It stars Kate Winslet and Leonardo DiCaprio.",
        "The movie won 11 Academy Awards.",
    ],
    "hebrew": [
        "ירושלים היא בירת ישראל.",
        "תל אביב שוכנת על חוף הים התיכון.",
        "חיפה היא עיר נמל בצפון.",
    ],
    "emoji": [
        "Pizza 🍕 was born in Naples 🇮🇹.",
        "The family 👩\u200d👩\u200d👧 ate three margheritas.",
        "Dessert was gelato 🍨 with café\u0301.",
    ],
}


def expected_prefixes(sentences: list[str]) -> list[str]:
    answer = " ".join(sentences)
    ends, at = [], 0
    for sentence in sentences:
        at = answer.index(sentence, at) + len(sentence)
        ends.append(answer[:at])
    return ends


@pytest.mark.parametrize("language", ANSWERS)
def test_paste_check_and_see_markers_after_each_sentence(
    language: str, open_session: Callable[..., Session], fake_engine: GroundingEngine
) -> None:
    sentences = ANSWERS[language]
    session = open_session()
    page = session.page
    session.goto("/reviews/new/")
    page.fill("#id_answer", " ".join(sentences))
    page.fill("#fact-0-text", sentences[0])
    page.fill("[name='fact-0-key-0']", "author")
    page.fill("[name='fact-0-value-0']", "Encyclopedia")
    page.fill("#fact-1-text", sentences[1])
    # JavaScript adds and removes rows: drop the third blank row, add one at the end.
    page.locator(".fact-row").nth(2).get_by_role("button", name="Remove this fact").click()
    page.get_by_role("button", name="+ Add fact").click()
    page.fill("#fact-3-text", sentences[2])
    page.get_by_role("button", name="Check answer").click()
    page.wait_for_selector("#result .review")

    review = Review.objects.get()
    assert page.url == session.base + review.get_absolute_url()  # pushed by htmx
    assert page.locator("#review-form").count() == 1  # swapped in, not navigated
    assert [f["factText"] for f in review.facts] == sentences
    assert review.facts[0]["attributes"] == {"author": "Encyclopedia"}

    found = page.locator(".answer-part").first.evaluate(READ_MARKERS)
    assert found["text"] == " ".join(sentences)
    assert found["markers"] == expected_prefixes(sentences)
    assert found["direction"] == ("rtl" if language == "hebrew" else "ltr")
    # Each claim's verdict is written out, not only coloured.
    labels = page.locator(".claims .badge").all_inner_texts()
    assert len(labels) == 3
    assert set(labels) <= {"Supported", "Unsupported", "No check needed"}
    session.no_xss()


def test_the_same_form_works_without_javascript(
    open_session: Callable[..., Session], fake_engine: GroundingEngine
) -> None:
    sentences = ANSWERS["english"]
    session = open_session(javascript=False)
    page = session.page
    session.goto("/reviews/new/")
    assert page.locator(".fact-row").count() == 3
    assert not page.get_by_role("button", name="+ Add fact").is_visible()
    page.fill("#id_answer", " ".join(sentences))
    for i, sentence in enumerate(sentences):
        page.fill(f"#fact-{i}-text", sentence)
    page.fill("[name='fact-2-key-1']", "source")
    page.fill("[name='fact-2-value-1']", "Archive")
    page.get_by_role("button", name="Check answer").click()
    page.wait_for_selector(".review")

    review = Review.objects.get()
    assert page.url == session.base + review.get_absolute_url()  # a real page load
    assert review.facts[2] == {"factText": sentences[2], "attributes": {"source": "Archive"}}
    found = page.locator(".answer-part").first.evaluate(READ_MARKERS)
    assert found["markers"] == expected_prefixes(sentences)


def test_errors_come_back_in_the_form(
    open_session: Callable[..., Session], fake_engine: GroundingEngine
) -> None:
    session = open_session()
    page = session.page
    session.goto("/reviews/new/")
    page.fill("#id_answer", "An answer.")
    page.fill("#id_facts_json", '[{"factText": 3}]')
    page.get_by_role("button", name="Check answer").click()
    page.wait_for_selector("text=[0].factText: expected a string, got a number.")
    assert page.input_value("#id_answer") == "An answer."
    assert not Review.objects.exists()


def test_hovering_or_focusing_a_claim_lights_up_its_sources(
    open_session: Callable[..., Session], fake_engine: GroundingEngine
) -> None:
    sentences = ANSWERS["english"]
    session = open_session()
    page = session.page
    session.goto("/reviews/new/")
    page.fill("#id_answer", " ".join(sentences))
    for i, sentence in enumerate(sentences):
        page.fill(f"#fact-{i}-text", sentence)
    page.get_by_role("button", name="Check answer").click()
    page.wait_for_selector("#result .review")

    claim = page.locator(".answer-part .claim[data-sources]:not([data-sources=''])").first
    cited = claim.get_attribute("data-sources").split()
    assert cited
    claim.hover()
    for anchor in cited:
        assert "is-cited" in page.locator(f"#{anchor}").get_attribute("class")
    row_id = claim.get_attribute("data-claims").split()[0]
    assert "is-active" in page.locator(f"#{row_id}").get_attribute("class")

    page.mouse.move(0, 0)
    assert page.locator(".source.is-cited").count() == 0
    page.locator(f"#{row_id}").focus()  # keyboard users reach claims through the table
    for anchor in cited:
        assert "is-cited" in page.locator(f"#{anchor}").get_attribute("class")

    # The marker links to its entry in the source list.
    page.locator(".answer-part sup.cite a").first.click()
    assert page.url.endswith(f"#{cited[0]}")
