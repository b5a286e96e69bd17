"""The review page says, on every claim, when the LLM judge decided its verdict and when it
fell back to the local one (and why): beside the claim in the answer, on its row next to
the verdict, and in one line above the answer; a review it never saw shows none of it."""

from __future__ import annotations

import re

from django.test import Client

from grounding_app.reviews.models import Review
from tests.reviews.llm_judge_data import HEBREW, llm_judged_review

DECIDED = "Verdict decided by the LLM judge, an external model, not the local one"
TIMEOUT = "LLM judge fell back (timeout): the verifier&#x27;s verdict stands"
HTTP_429 = "LLM judge fell back (HTTP 429): the verifier&#x27;s verdict stands"


def page_of(client: Client, review: Review) -> str:
    response = client.get(review.get_absolute_url())
    assert response.status_code == 200
    return response.content.decode()


def rows(page: str) -> list[str]:
    return re.findall(r'<tr id="c0-claim-\d+".*?</tr>', page, flags=re.S)


def verdict_cell(row: str) -> str:
    return row.split('<td class="verdict">', 1)[1].split("</td>", 1)[0]


def decided_mark(extra: str = "") -> str:
    """In the answer (`extra` "ann "), its words are joined by no-break spaces."""
    words = "LLM judge".replace(" ", "\u00a0" if extra else " ")
    return (
        f'<span class="{extra}llm-mark llm-decided" dir="ltr" title="{DECIDED}" '
        f'aria-hidden="true">{words}</span>'
    )


def fell_back_mark(note: str, extra: str = "") -> str:
    words = "LLM fell back".replace(" ", "\u00a0" if extra else " ")
    return (
        f'<span class="{extra}llm-mark llm-fell-back" dir="ltr" title="{note}" '
        f'aria-hidden="true">{words}</span>'
    )


def test_each_row_shows_the_mark_beside_the_verdict_and_a_fallback_says_why(
    reviewer_client: Client, reviewer: object
) -> None:
    page = page_of(reviewer_client, llm_judged_review(reviewer))
    supported, unsupported, timeout, http_429, local = rows(page)
    for row, verdict in ((supported, "Supported"), (unsupported, "Unsupported")):
        assert verdict_cell(row) == (
            f'<span class="badge v-{verdict.lower()}">{verdict}</span>'
            f'{decided_mark()}<span class="sr-only">{DECIDED}</span>'
        )
        assert "llm-note" not in row
    for row, note in ((timeout, TIMEOUT), (http_429, HTTP_429)):
        assert fell_back_mark(note) in verdict_cell(row)
        assert '<span class="sr-only">LLM fell back</span>' in verdict_cell(row)
        assert f'<span class="llm-note" dir="ltr">{note}</span>' in row
    assert "llm-" not in local and "LLM judge" not in local


def test_the_answer_marks_each_claim_and_one_line_counts_them(
    reviewer_client: Client, reviewer: object
) -> None:
    page = page_of(reviewer_client, llm_judged_review(reviewer))
    answer = page.split('aria-label="Answer"', 1)[1].split("</section>", 1)[0]
    glue = '<span class="ann" aria-hidden="true">\u2060</span>'
    assert answer.count(glue + decided_mark("ann ")) == 2
    assert answer.count(f"; {DECIDED})</span>") == 2
    for note in (TIMEOUT, HTTP_429):
        assert answer.count(glue + fell_back_mark(note, "ann ")) == 1
        assert answer.count(f"; {note})</span>") == 1
    assert answer.count("llm-mark") == 4
    assert (
        '<p class="llm-summary" role="note" dir="ltr">2 claims decided by the LLM judge; '
        "2 fell back (HTTP 429 on 1, timeout on 1): the verifier&#x27;s verdicts stand.</p>"
    ) in page


def test_a_right_to_left_answer_keeps_each_mark_an_english_isolate(
    reviewer_client: Client, reviewer: object
) -> None:
    page = page_of(reviewer_client, llm_judged_review(reviewer, HEBREW))
    answer = page.split('aria-label="Answer"', 1)[1].split("</section>", 1)[0]
    assert answer.count('<span class="claim-unit" dir="rtl">') == 3
    assert answer.count('llm-mark llm-decided" dir="ltr"') == 2
    assert answer.count('llm-mark llm-fell-back" dir="ltr"') == 1
    assert (
        "2 claims decided by the LLM judge; 1 fell back (timeout): "
        "the verifier&#x27;s verdict stands.</p>"
    ) in page


def test_a_review_the_llm_judge_never_saw_shows_nothing_of_it(
    reviewer_client: Client, reviewer: object
) -> None:
    plain = tuple((text, "verifier", None, score, cite) for text, _, _, score, cite in HEBREW)
    page = page_of(reviewer_client, llm_judged_review(reviewer, plain))
    assert "llm-mark" not in page and "llm-summary" not in page and "LLM judge" not in page
