# ruff: noqa: RUF003
"""Language profiles and identification: table tests, both ways."""

from __future__ import annotations

import pytest

from grounding_app.engine.lang import identify, language_name, profile
from grounding_app.engine.lang.sentences import unchecked_reason


@pytest.mark.parametrize(
    ("word", "forms"),
    [
        ("ובבית", {"ובבית", "בבית", "בית"}),
        ("שמהעיר", {"שמהעיר", "מהעיר", "העיר", "עיר"}),
        ("הספר", {"הספר", "ספר"}),
        ("בית", {"בית"}),  # three letters stay whole: "ית" is no word
        ("ים", {"ים"}),
        ("ירושלים", {"ירושלים"}),  # "י" is no prefix
        ("1997", {"1997"}),
    ],
)
def test_hebrew_words_shed_their_one_letter_prefixes(word, forms):
    assert profile("he").word_forms(word) == forms


@pytest.mark.parametrize(
    ("text", "numbers"),
    [
        ("הוא נולד ב-1997.", {"1997"}),
        ("4 ביולי 1950", {"1950", "1950-07", "1950-07-04"}),
        ("היו שלושה ילדים ועשרים מורים", {"3", "20"}),
        ("ולשלושת האחים", {"3"}),
        ("אין כאן מספרים", set()),
        ("It won eleven awards in 1998.", {"11", "1998"}),
    ],
)
def test_numbers_in_digits_and_words(text, numbers):
    language = "he" if any("\u05d0" <= c <= "\u05ea" for c in text) else "en"
    assert profile(language).numbers(text) == numbers


@pytest.mark.parametrize(
    ("text", "numbers"),
    [
        ("ב-4 ביולי 1950", {"1950", "1950-07", "1950-07-04"}),
        ("04/07/1950", {"1950", "1950-07", "1950-07-04"}),
        ("4.7.1950", {"1950", "1950-07", "1950-07-04"}),
        ("1950-07-04", {"1950", "1950-07", "1950-07-04"}),
        ("ובמרס 2003", {"2003", "2003-03"}),
        ("ב-1997", {"1997"}),
        ("31.12.1999 עם 1,500 איש", {"1999", "1999-12", "1999-12-31", "1500"}),
        ("3.5 מיליון", {"3.5", "1000000"}),
        # Not dates: no year, a day past 31, a month past 12.
        ("4 ביולי", {"4"}),
        ("40 ביולי 1950", {"40", "1950", "1950-07"}),
        ("04/13/1950", {"4", "13", "1950"}),
    ],
)
def test_hebrew_dates_are_read_as_dates_in_every_form(text, numbers):
    assert profile("he").numbers(text) == numbers


@pytest.mark.parametrize(
    ("claim", "evidence", "missing"),
    [
        ("4 ביולי 1950", "ב-04/07/1950", False),
        ("יולי 1950", "4 ביולי 1950", False),
        ("1950", "4 ביולי 1950", False),
        ("5 ביולי 1950", "4 ביולי 1950", True),
        ("4 ביולי 1950", "יולי 1950", True),
        ("אוגוסט 1950", "4 ביולי 1950", True),
    ],
)
def test_a_date_matches_a_less_precise_one_and_not_a_more_precise_one(claim, evidence, missing):
    hebrew = profile("he")
    assert bool(hebrew.numbers(claim) - hebrew.numbers(evidence)) is missing


@pytest.mark.parametrize(
    ("language", "word", "negation"),
    [
        ("he", "לא", True),
        ("he", "ולא", True),
        ("he", "אינו", True),
        ("he", "אין", True),
        ("he", "מעולם", True),
        ("he", "לאה", False),  # a name, not "לא"
        ("he", "בית", False),
        ("en", "not", True),
        ("en", "never", True),
        ("en", "knot", False),
    ],
)
def test_negations(language, word, negation):
    assert profile(language).is_negation(word) is negation


@pytest.mark.parametrize(
    ("sentence", "reaction"),
    [
        ("זה מדהים!", True),
        ("וואו!", True),
        ("תודה רבה.", True),
        ("אני מסכים!", True),
        ("זה מדהים שהנהר זורם לים המלח.", False),
        ("הירדן זורם לים המלח.", False),
    ],
)
def test_hebrew_reactions_state_nothing(sentence, reaction):
    assert (unchecked_reason(sentence) is not None) is reaction


def test_content_words_leave_out_stop_words_negations_and_numbers():
    assert profile("he").content_words("הוא לא גר בעיר של שלושה אחים") == ["גר", "בעיר", "אחים"]
    assert profile("en").content_words("He did not live in the city of three brothers") == [
        "live",
        "city",
        "brothers",
    ]


@pytest.mark.parametrize(
    ("text", "context", "language"),
    [
        ("הירדן זורם לים המלח.", "", "he"),
        ("זה מדהים!", "", "he"),
        ("Titanic was directed by James Cameron.", "", "en"),
        # Short English replies that py3langid reads as another Latin-script language
        # with middling confidence stay English.
        ("monsters university!", "", "en"),
        ("haha the burn book!", "", "en"),
        ("Are Pam Veasey and Jon Jost both American? yes.", "", "en"),
        ("mae arbenigwyr canser yn gobeithio y bydd cynllun newydd yn cael ei dreialu", "", "cy"),
        ("长城是古代中国的防御工程。", "", "zh"),
        ("東京タワーは電波塔として完成しました。", "", "ja"),
        ("Это Москва. Она большая.", "", "ru"),
        # In a mixed answer each sentence keeps its own language.
        (
            "The Jordan flows into the Dead Sea.",
            "The Jordan flows into the Dead Sea. הירדן נשפך לים המלח.",
            "en",
        ),
        ("הירדן נשפך לים המלח.", "The Jordan flows into the Dead Sea. הירדן נשפך לים המלח.", "he"),
        # Text without letters takes the answer's language.
        ("1997.", "הסרט יצא לאקרנים בשנת 1997 וזכה בפרסים רבים.", "he"),
        ("1997.", "", "en"),
    ],
)
def test_identify(text, context, language):
    assert identify(text, context) == language


def test_identify_falls_back_to_the_languages_the_judges_read():
    assert identify("monsters university!", fallback=("he",)) in {"he", "en"}
    assert identify("5", fallback=("de",)) == "de"


def test_language_names():
    assert language_name("he") == "Hebrew"
    assert language_name("en") == "English"
    assert language_name("cy") == "Welsh"
    assert language_name("wuu") == "Chinese (Wu)"  # py3langid reads some Chinese so
    assert language_name("xx") == "xx"
