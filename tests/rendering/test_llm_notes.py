"""The LLM judge in words: each claim it decided gets a mark, each claim where it fell back
a note naming why and whose verdict stands, and the candidate one line counting both."""

from __future__ import annotations

import pytest

from grounding_app.engine import CheckRequest, CheckResponse, Claim, Fact, utf8_len
from grounding_app.formats.from_check import grounded_from_check
from grounding_app.rendering.answer import RenderedCandidate, render_answer
from grounding_app.rendering.llm_notes import fallback_note, fallback_reason, local_name, summary


@pytest.mark.parametrize(
    ("stored", "expected"),
    [
        (None, ""),
        ("", ""),
        ("fell back: timeout", "timeout"),
        ("fell back: http 429", "HTTP 429"),
        ("fell back: http 500", "HTTP 500"),
        ("fell back: bad answer", "bad answer"),
        ("fell back: daily cap", "daily cap"),
        ("fell back:", "no reason given"),
        ("something else", "something else"),  # another form is shown whole
    ],
)
def test_the_reason_of_a_stored_note(stored: str | None, expected: str) -> None:
    assert fallback_reason(stored) == expected


@pytest.mark.parametrize(
    ("reason", "checked_by", "expected"),
    [
        ("timeout", "verifier", "LLM judge fell back (timeout): the verifier's verdict stands"),
        (
            "HTTP 429",
            "feature_judge",
            "LLM judge fell back (HTTP 429): the feature judge's verdict stands",
        ),
        ("daily cap", None, "LLM judge fell back (daily cap): the local judge's verdict stands"),
    ],
)
def test_the_note_of_one_claim(reason: str, checked_by: str | None, expected: str) -> None:
    assert fallback_note(reason, checked_by) == expected


def test_whose_verdict_stands() -> None:
    assert local_name(["verifier", "verifier"]) == "verifier"
    assert local_name(["feature_judge"]) == "feature judge"
    assert local_name(["verifier", "feature_judge"]) == "local judge"
    assert local_name(["word_matching"]) == "word-matching judge"  # a Hebrew claim


@pytest.mark.parametrize(
    ("decided", "fell_back", "expected"),
    [
        (0, [], ""),
        (1, [], "1 claim decided by the LLM judge"),
        (3, [], "3 claims decided by the LLM judge"),
        (
            3,
            [("timeout", "verifier")],
            "3 claims decided by the LLM judge; 1 fell back (timeout): "
            "the verifier's verdict stands",
        ),
        (
            1,
            [("timeout", "verifier"), ("timeout", "verifier")],
            "1 claim decided by the LLM judge; 2 fell back (timeout): "
            "the verifier's verdicts stand",
        ),
        (
            0,
            [("HTTP 429", "verifier")],
            "The LLM judge fell back on 1 claim (HTTP 429): the verifier's verdict stands",
        ),
        (
            0,
            [("timeout", "verifier"), ("HTTP 500", "verifier"), ("timeout", "verifier")],
            "The LLM judge fell back on 3 claims (timeout on 2, HTTP 500 on 1): "
            "the verifier's verdicts stand",
        ),
        (
            2,
            [("bad answer", "verifier"), ("daily cap", "feature_judge")],
            "2 claims decided by the LLM judge; 2 fell back (bad answer on 1, daily cap on 1): "
            "the local judge's verdicts stand",
        ),
    ],
)
def test_the_summary_line(
    decided: int, fell_back: list[tuple[str, str | None]], expected: str
) -> None:
    assert summary(decided, fell_back) == expected


DECIDED_TITLE = "Verdict decided by the LLM judge, an external model, not the local one"
SENTENCES = (
    ("Titanic was directed by James Cameron.", "llm_judge", None),
    ("It won eleven Oscars.", "verifier", "fell back: http 429"),
    ("טיטאניק יצא בשנת 1997.", "verifier", "fell back: timeout"),
    ("It starred Kate Winslet.", "verifier", None),
    ("הסרט זכה בפרסים.", "word_matching", None),
)


def rendered(sentences: tuple[tuple[str, str, str | None], ...] = SENTENCES) -> RenderedCandidate:
    answer = " ".join(text for text, _, _ in sentences)
    claims = []
    for text, checked_by, note in sentences:
        start = utf8_len(answer[: answer.index(text)])
        end = start + utf8_len(text)
        claims.append(Claim(start, end, text, True, (), 0.5, "en", checked_by, llm_judge=note))
    request = CheckRequest(answer, (Fact("Titanic."),), 0.6, True)
    (candidate,) = render_answer(
        grounded_from_check(request, CheckResponse(tuple(claims), (), 0.5))
    )
    return candidate


@pytest.mark.parametrize(
    ("number", "mark", "sentence"),
    [
        (1, "LLM judge", DECIDED_TITLE),
        (2, "LLM fell back", "LLM judge fell back (HTTP 429): the verifier's verdict stands"),
        (3, "LLM fell back", "LLM judge fell back (timeout): the verifier's verdict stands"),
        (4, "", ""),
        (5, "", ""),
    ],
)
def test_each_claim_view_names_what_the_llm_judge_did(
    number: int, mark: str, sentence: str
) -> None:
    claim = rendered().claims[number - 1]
    assert (claim.llm_judge_mark, claim.llm_judge) == (mark, sentence)


def test_the_answer_marks_the_claims_in_words_and_for_screen_readers() -> None:
    candidate = rendered()
    html = candidate.parts_html[0]
    assert (
        '<span class="ann" aria-hidden="true">\u2060</span>'
        f'<span class="ann llm-mark llm-decided" dir="ltr" title="{DECIDED_TITLE}" '
        'aria-hidden="true">LLM\u00a0judge</span>'
        f'<span class="ann sr-only">(Unsupported, score 0.50; {DECIDED_TITLE})</span>'
    ) in html
    note = "LLM judge fell back (timeout): the verifier&#x27;s verdict stands"
    assert (
        '<span class="ann" aria-hidden="true">\u2060</span>'
        f'<span class="ann llm-mark llm-fell-back" dir="ltr" title="{note}" '
        'aria-hidden="true">LLM\u00a0fell\u00a0back</span>'
        f'<span class="ann sr-only">(Unsupported, score 0.50; {note})</span>'
    ) in html
    assert html.count("llm-mark") == 3
    assert candidate.llm_judge == (
        "1 claim decided by the LLM judge; 2 fell back (HTTP 429 on 1, timeout on 1): "
        "the verifier's verdicts stand"
    )


def test_an_answer_the_llm_judge_never_saw_has_no_mark_and_no_line() -> None:
    candidate = rendered(tuple((t, "verifier", None) for t, _, _ in SENTENCES))
    assert "llm-mark" not in candidate.parts_html[0] and candidate.llm_judge == ""


def test_a_decided_claim_shows_no_fallback_and_a_stored_note_is_escaped() -> None:
    candidate = rendered(
        (
            ("Titanic was directed by James Cameron.", "llm_judge", "fell back: timeout"),
            ("It won eleven Oscars.", "verifier", 'fell back: "><b>x'),
        )
    )
    decided, fell = candidate.claims
    assert decided.llm_judge_mark == "LLM judge" and decided.llm_fallback == ""
    assert "<b>" not in candidate.parts_html[0]
    assert 'title="LLM judge fell back (&quot;&gt;&lt;b&gt;x)' in candidate.parts_html[0]
    assert fell.llm_fallback == '"><b>x'
