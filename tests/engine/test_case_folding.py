"""Words that match a pattern only ignoring case: with a dotted capital I ("APR\u0130L") or
a long s ("thou\u017fand") a word matches "april" or "thousand" ignoring case, but
lower-cased it is no such word. Each reader that looked the lower-cased word up raised
KeyError, which the API answered as a 500 (41 of 300 random checks like the one below
failed on c61c692)."""

from __future__ import annotations

import random
from decimal import Decimal

import pytest

from grounding_app.engine.lang.numbers import quantities
from grounding_app.engine.normalise import align_dates
from grounding_app.engine.pipeline import GroundingEngine
from grounding_app.engine.types import CheckRequest, Fact

ODD = ["APR\u0130L", "M\u0130LL\u0130ON", "thou\u017fand", "\u017feptember", "B\u0130LL\u0130ON"]


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("It has 2 M\u0130LL\u0130ON fans.", [("2", Decimal(2))]),
        ("It has 2 thou\u017fand fans.", [("2", Decimal(2))]),
        ("It has 2 MILLION fans.", [("2 MILLION", Decimal(2_000_000))]),
        ("It has 2 Thousand fans.", [("2 Thousand", Decimal(2000))]),
    ],
)
def test_a_scale_word_is_read_ignoring_case_in_ascii_only(text, read):
    assert [(text[q.start : q.end], q.value) for q in quantities(text)] == read


def test_a_month_name_that_lower_cases_to_none_is_no_date_beside_one_that_does():
    evidence = "It opened in April 2019 and closed on APR\u0130L 4, 2020."
    assert align_dates("It opened in Apr. 2019.", evidence) == "It opened in April 2019."
    assert align_dates("It closed on 4 April 2020.", evidence) == "It closed on 4 April 2020."


@pytest.fixture(scope="module")
def engine() -> GroundingEngine:
    return GroundingEngine.default()


WORDS = [
    *ODD,
    *"4 2020 1990s 3rd 2,000 40% about over between and 10\u201312 May JUNE Dec.".split(),
    "04/07/1950",
    *"It He she The a third of ## See ? million hundred dozen twenty first COVID-19 U.S.".split(),
]


def test_the_engine_checks_answers_and_facts_full_of_such_words(engine):
    rng = random.Random(1)

    def text(words: int) -> str:
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, words)))

    for _ in range(40):
        answer = ". ".join(text(12) for _ in range(rng.randint(1, 3))) + "."
        facts = [Fact(text=". ".join(text(15) for _ in range(3))) for _ in range(2)]
        response = engine.check(CheckRequest(answer=answer, facts=facts))
        # None: no piece of the answer needed a check (a heading, a question).
        assert response.support_score is None or 0.0 <= response.support_score <= 1.0
