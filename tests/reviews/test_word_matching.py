"""The review page says, on every claim that word matching judged, that it did: on the
claim's row, beside the claim in the answer and in one line above; never for English.

Most tests use the fake engine (a feature judge that reads English, with the real word
matching for every other language); one runs the real engine on a short answer."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from grounding_app.active_verifier.checker import Checker
from grounding_app.engine import CheckRequest, CheckResponse, Claim, Fact, GroundingEngine
from grounding_app.formats.from_check import grounded_from_check
from grounding_app.rendering.answer import render_answer
from grounding_app.rendering.languages import JudgeInfo, mark_text, names, summary
from grounding_app.reviews import services
from grounding_app.reviews.models import Review

pytestmark = pytest.mark.django_db

FACTS = (
    Fact("Titanic is a 1997 American film directed by James Cameron."),
    Fact("טיטאניק הוא סרט אמריקאי משנת 1997 שביים ג'יימס קמרון."),
)
ENGLISH = "Titanic was directed by James Cameron."
HEBREW = "טיטאניק בוים על ידי ג'יימס קמרון. הסרט יצא בשנת 1997."
MIXED = f"{ENGLISH} {HEBREW}"


def page_of(client: Client, review: Review) -> str:
    response = client.get(review.get_absolute_url())
    assert response.status_code == 200
    return response.content.decode()


def checked(user: object, answer: str) -> Review:
    return services.check_and_save(user, CheckRequest(answer, FACTS, 0.6, True))


def rows(page: str) -> list[str]:
    return re.findall(r'<tr id="c0-claim-\d+".*?</tr>', page, flags=re.S)


def test_a_hebrew_claim_carries_the_mark_on_its_row_in_the_answer_and_in_a_summary(
    reviewer_client: Client, reviewer: object, fake_engine: GroundingEngine
) -> None:
    review = checked(reviewer, MIXED)
    page = page_of(reviewer_client, review)
    note = "Hebrew: checked by word matching; this feature judge reads English"
    english, *hebrew = rows(page)
    assert len(hebrew) == 2
    for row in hebrew:  # the row: the mark and the whole sentence, in words
        assert (
            '<span class="wm-note" dir="ltr"><span class="wm-mark wm-icon" aria-hidden="true">'
            f"</span>{note}</span>"
        ) in row
        assert 'title="Hebrew">' in row  # the language beside the score
    assert "wm-" not in english and "word matching" not in english
    assert 'title="English"><span aria-hidden="true">EN</span>' in english
    # In the answer: a visible mark after each Hebrew claim, the sentence in its title
    # and, for screen readers, in the claim's spoken verdict.
    answer = page.split('aria-label="Answer"', 1)[1].split("</section>", 1)[0]
    marks = re.findall(r'<span class="ann wm-mark" dir="ltr" title="([^"]+)"', answer)
    assert marks == [note, note]
    assert answer.count(f"; {note})</span>") == 2
    assert answer.index(ENGLISH) < answer.index("wm-mark")  # nothing after the English one
    # One line above the answer says how many.
    assert (
        '<p class="wm-summary" role="note" dir="ltr">'
        '<span class="wm-mark wm-icon" aria-hidden="true"></span>'
        "2 of 3 checked claims are in Hebrew: checked by word matching; "
        "this feature judge reads English.</p>"
    ) in page


def test_an_english_answer_has_no_mark_and_no_summary(
    reviewer_client: Client, reviewer: object, fake_engine: GroundingEngine
) -> None:
    page = page_of(reviewer_client, checked(reviewer, ENGLISH))
    assert "word matching" not in page.lower()
    assert 'class="ann wm-mark' not in page and "wm-summary" not in page
    assert 'title="English"><span aria-hidden="true">EN</span>' in page


def test_a_hebrew_only_answer_says_all_its_claims_were_word_matched(
    reviewer_client: Client, reviewer: object, fake_engine: GroundingEngine
) -> None:
    page = page_of(reviewer_client, checked(reviewer, HEBREW))
    assert "All 2 checked claims are in Hebrew: checked by word matching" in page
    assert page.count('<span class="ann wm-mark" dir="ltr"') == 2
    assert page.count('<span class="wm-note" dir="ltr">') == 2


def test_a_review_naming_no_verifier_says_so_without_loading_the_engine(
    reviewer_client: Client, reviewer: object, fresh_checker: Checker
) -> None:
    """A stored result that names no verifier: the sentence leaves out the model's
    languages, and rendering the page does not load the model."""
    claims = (
        Claim(0, len(ENGLISH), ENGLISH, True, (), 0.2, "en", "verifier"),
        Claim(len(ENGLISH) + 1, len(MIXED.encode()), HEBREW, True, (), 0.3, "he", "word_matching"),
    )
    request = CheckRequest(MIXED, FACTS, 0.6, True)
    review = services.save_review(
        reviewer,
        grounded_from_check(request, CheckResponse(claims, (), 0.0)),
        source_format=Review.Format.MANUAL,
        request=request,
        engine_checked=True,
    )
    page = page_of(reviewer_client, review)
    assert not fresh_checker.is_ready()
    assert "Hebrew: checked by word matching; the verifier does not read Hebrew" in page
    assert "The one checked claim" not in page
    assert "1 of 2 checked claims is in Hebrew: checked by word matching" in page


def test_a_review_stored_before_languages_were_kept_renders_without_marks(
    reviewer_client: Client, reviewer: object, fake_engine: GroundingEngine
) -> None:
    review = checked(reviewer, MIXED)
    old = dict(review.result, version=2)
    for segment in old["candidates"][0]["segments"]:
        segment.pop("language"), segment.pop("checked_by")
    Review.objects.filter(pk=review.pk).update(result=old)
    page = page_of(reviewer_client, Review.objects.get(pk=review.pk))
    assert "word matching" not in page.lower() and "lang-code" not in page


def test_the_real_engine_marks_the_hebrew_claims_of_a_mixed_answer(
    reviewer_client: Client, reviewer: object, fresh_checker: Checker
) -> None:
    review = checked(reviewer, MIXED)  # by the real engine, loaded anew
    assert fresh_checker.engine().languages == ("en",)
    page = page_of(reviewer_client, review)
    english, *hebrew = rows(page)
    assert "word matching" not in english
    for row in hebrew:
        assert "Hebrew: checked by word matching; this verifier reads English" in row
    assert "2 of 3 checked claims are in Hebrew" in page


# --- the sentences ---------------------------------------------------------------

ENGLISH_ONLY = JudgeInfo(("en",))
NOT_LOADED = JudgeInfo()


@pytest.mark.parametrize(
    ("judge", "language", "expected"),
    [
        (ENGLISH_ONLY, "he", "Hebrew: checked by word matching; this verifier reads English"),
        (ENGLISH_ONLY, "zh", "Chinese: checked by word matching; this verifier reads English"),
        (NOT_LOADED, "he", "Hebrew: checked by word matching; the verifier does not read Hebrew"),
        (ENGLISH_ONLY, None, "Checked by word matching; this verifier reads English"),
        (NOT_LOADED, None, "Checked by word matching; the verifier does not read it"),
        (
            JudgeInfo(("en", "he")),
            "he",
            "Hebrew: checked by word matching; this verifier now reads English and Hebrew: "
            "re-check to use it",
        ),
        (
            JudgeInfo(("en",), "feature judge"),
            "he",
            "Hebrew: checked by word matching; this feature judge reads English",
        ),
    ],
)
def test_the_note_of_one_claim(judge: JudgeInfo, language: str | None, expected: str) -> None:
    assert judge.note(language) == expected


@pytest.mark.parametrize(
    ("matched", "checked", "judge", "expected"),
    [
        ([], 4, ENGLISH_ONLY, ""),
        (
            ["he", "he", "he"],
            5,
            ENGLISH_ONLY,
            "3 of 5 checked claims are in Hebrew: checked by word matching; "
            "this verifier reads English",
        ),
        (
            ["he"],
            1,
            NOT_LOADED,
            "The one checked claim is in Hebrew: checked by word "
            "matching; the verifier does not read Hebrew",
        ),
        (
            ["he", "zh", "he"],
            3,
            ENGLISH_ONLY,
            "All 3 checked claims are in Hebrew (2) and Chinese (1): checked by word "
            "matching; this verifier reads English",
        ),
        (
            ["zh", "he"],
            4,
            NOT_LOADED,
            "2 of 4 checked claims are in Chinese (1) and Hebrew (1): checked by word "
            "matching; the verifier does not read Chinese or Hebrew",
        ),
    ],
)
def test_the_summary_line(
    matched: list[str], checked: int, judge: JudgeInfo, expected: str
) -> None:
    assert summary(matched, checked, judge) == expected


def test_names_and_marks() -> None:
    assert names(["en"]) == "English"
    assert names(["en", "he", "zh"]) == "English, Hebrew and Chinese"
    assert names([]) == ""
    assert mark_text("he") == "Hebrew: word matching" and mark_text(None) == "Word matching"


def test_rendering_escapes_the_sentence_and_keeps_the_mark_an_isolate() -> None:
    """The mark is English text beside a claim of any direction: dir="ltr" makes it an
    isolate; the language code comes from a stored result and is escaped like text."""
    text = "שלום עולם."
    claim = Claim(0, len(text.encode()), text, True, (), 0.5, '"><b>x', "word_matching")
    request = CheckRequest(text, (Fact("עולם"),), 0.6, True)
    (candidate,) = render_answer(
        grounded_from_check(request, CheckResponse((claim,), (), 0.5)), judge=ENGLISH_ONLY
    )
    html = candidate.parts_html[0]
    assert "<b>" not in html and "&quot;&gt;&lt;b&gt;x: word matching" in html
    assert 'class="ann wm-mark" dir="ltr"' in html
    assert candidate.parts_dir == ("rtl",)
