# ruff: noqa: RUF001
"""The number reader's table: what each written number is read as (value, rounding step,
kind, unit, hedge, range), in English and Hebrew, with the misses kept on purpose."""

from __future__ import annotations

from decimal import Decimal

import pytest

from grounding_app.engine.lang import profile
from grounding_app.engine.lang.numbers import (
    ABOUT,
    AT_LEAST,
    AT_MOST,
    BETWEEN,
    COUNT,
    CURRENCY,
    DATE,
    MEASURE,
    ORDINAL,
    PERCENT,
    YEAR,
    align_values,
    quantities,
    unsupported,
)
from grounding_app.engine.word_match import FEATURE_NAMES, features


def read(text: str, language: str = "en") -> list[tuple[str, str, str | None, str, str, str, str]]:
    """(span text, value, high, step, kind, unit, hedge) per number, numbers as strings."""

    def plain(value: Decimal | None) -> str | None:
        return None if value is None else format(value.normalize(), "f")

    return [
        (
            text[q.start : q.end],
            format(q.value.normalize(), "f"),
            plain(q.high),
            format(q.step.normalize(), "f"),
            q.kind,
            q.unit,
            q.hedge,
        )
        for q in quantities(text, language)
    ]


ENGLISH = [
    # digits with separators, decimals, scale words, scales written onto the figure
    ("It has 2,102,650 residents.", [("2,102,650", "2102650", None, "1", COUNT, "", "")]),
    ("It has 2.1 million.", [("2.1 million", "2100000", None, "100000", COUNT, "", "")]),
    ("It has 2.1M.", [("2.1M", "2100000", None, "100000", COUNT, "", "")]),
    ("It has 10k fans.", [("10k", "10000", None, "1000", COUNT, "", "")]),
    ("It cost $3bn.", [("$3bn", "3000000000", None, "1000000000", CURRENCY, "USD", "")]),
    ("It cost $50m.", [("$50m", "50000000", None, "1000000", CURRENCY, "USD", "")]),
    # "m" is a scale only after a currency sign: "5m" is five metres
    ("A 5m wall.", [("5", "5", None, "1", COUNT, "", "")]),
    ("It weighs 2.50 kg.", [("2.50", "2.5", None, "0.01", MEASURE, "kg", "")]),
    # words
    ("It won eleven awards.", [("eleven", "11", None, "1", COUNT, "", "")]),
    ("It has twenty-one arches.", [("twenty-one", "21", None, "1", COUNT, "", "")]),
    (
        "About two million people.",
        [("two million", "2000000", None, "1000000", COUNT, "", ABOUT)],
    ),
    # percentages and currencies
    ("Roughly 40% of it.", [("40%", "40", None, "1", PERCENT, "", ABOUT)]),
    ("Up 12 percentage points.", [("12 percentage points", "12", None, "1", PERCENT, "", "")]),
    ("It was 40 per cent.", [("40 per cent", "40", None, "1", PERCENT, "", "")]),
    ("It cost €25.", [("€25", "25", None, "1", CURRENCY, "EUR", "")]),
    ("It cost 20 dollars.", [("20", "20", None, "1", CURRENCY, "USD", "")]),
    # hedges
    ("Nearly 300 metres.", [("300", "300", None, "1", MEASURE, "m", ABOUT)]),
    ("More than 500 people.", [("500", "500", None, "1", COUNT, "", AT_LEAST)]),
    ("At least 500 people.", [("500", "500", None, "1", COUNT, "", AT_LEAST)]),
    ("Fewer than 500 people.", [("500", "500", None, "1", COUNT, "", AT_MOST)]),
    ("No more than 500 people.", [("500", "500", None, "1", COUNT, "", AT_MOST)]),
    ("Some 500 people.", [("500", "500", None, "1", COUNT, "", ABOUT)]),
    ("The awesome 500 people.", [("500", "500", None, "1", COUNT, "", "")]),
    # ranges
    ("Between 10 and 12 people.", [("10 and 12", "10", "12", "1", COUNT, "", BETWEEN)]),
    ("From 10 to 12 people.", [("10 to 12", "10", "12", "1", COUNT, "", "")]),
    ("It grew 10–12%.", [("10–12%", "10", "12", "1", PERCENT, "", "")]),
    (
        "It costs $10-12 million.",
        [("$10-12 million", "10000000", "12000000", "1000000", CURRENCY, "USD", "")],
    ),
    # no ranges: a score, a date, a count and a year joined by "and"
    (
        "They won 3-0.",
        [("3", "3", None, "1", COUNT, "", ""), ("0", "0", None, "1", COUNT, "", "")],
    ),
    (
        "On 2010-05-12.",
        [
            ("2010", "2010", None, "1", YEAR, "", ""),
            ("05", "5", None, "1", COUNT, "", ""),
            ("12", "12", None, "1", COUNT, "", ""),
        ],
    ),
    # years, dates and ordinals
    ("It opened in 1997.", [("1997", "1997", None, "1", YEAR, "", "")]),
    (
        "Born on 4 July 1950.",
        [("4", "4", None, "1", DATE, "", ""), ("1950", "1950", None, "1", YEAR, "", "")],
    ),
    ("The 21st time.", [("21", "21", None, "1", ORDINAL, "", "")]),
    ("The twenty-first time.", [("twenty-first", "21", None, "1", ORDINAL, "", "")]),
    ("The twenty-fifth time.", [("twenty-fifth", "25", None, "1", ORDINAL, "", "")]),
    # fractions in words: percentages, hedged "about", to a tenth of their value
    ("Two-thirds of MPs.", [("Two-thirds", "66.67", None, "6.667", PERCENT, "", ABOUT)]),
    ("Three quarters of MPs.", [("Three quarters", "75", None, "7.5", PERCENT, "", ABOUT)]),
    (
        "One fifth of the budget, two of them.",
        [
            ("One fifth", "20", None, "2", PERCENT, "", ABOUT),
            ("two", "2", None, "1", COUNT, "", ""),
        ],
    ),
    ("A third of the budget.", [("A third", "33.33", None, "3.333", PERCENT, "", ABOUT)]),
    # kept misses: "half" and "a third" are too often no quantity ("the second half")
    ("Half of the budget.", []),
    ("A third term.", []),
]


@pytest.mark.parametrize(("text", "expected"), ENGLISH)
def test_english_numbers_are_read_with_what_they_mean(text, expected):
    assert read(text) == expected


# Words and numbers in digits, but no number in words: a long fact's stretch the reader of
# number words passes over.
FILLER = "The council met in May 2019 and voted on it; others were absent. " * 30


@pytest.mark.parametrize(("text", "expected"), ENGLISH)
def test_a_number_reads_alike_after_a_long_stretch_without_number_words(text, expected):
    """The reader of number words goes from one number word to the next: what it reads
    after a stretch it passed over is what it reads alone."""
    assert read(FILLER + text)[len(read(FILLER)) :] == expected


def test_number_words_far_apart_are_each_read() -> None:
    text = f"Twenty-one people came. {FILLER}A third of them left, and {FILLER}two hundred stayed."
    words = [number for number in read(text) if number[0][0].isalpha() and number[0] != "May 2019"]
    assert words == [
        ("Twenty-one", "21", None, "1", COUNT, "", ""),
        ("A third", "33.33", None, "3.333", PERCENT, "", ABOUT),
        ("two hundred", "200", None, "1", COUNT, "", ""),
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("גרים כ-970 אלף תושבים.", [("970 אלף", "970000", None, "1000", COUNT, "", ABOUT)]),
        ("גרים כ־970 אלף תושבים.", [("970 אלף", "970000", None, "1000", COUNT, "", ABOUT)]),
        ("גרים 2.1 מיליון תושבים.", [("2.1 מיליון", "2100000", None, "100000", COUNT, "", "")]),
        ("עלה 1.5 מיליארד.", [("1.5 מיליארד", "1500000000", None, "100000000", COUNT, "", "")]),
        ("40 אחוז מהתושבים.", [("40 אחוז", "40", None, "1", PERCENT, "", "")]),
        ("40% מהתושבים.", [("40%", "40", None, "1", PERCENT, "", "")]),
        ("יותר מ-500 איש.", [("500", "500", None, "1", COUNT, "", AT_LEAST)]),
        ("פחות מ-500 איש.", [("500", "500", None, "1", COUNT, "", AT_MOST)]),
        ("בערך 500 איש.", [("500", "500", None, "1", COUNT, "", ABOUT)]),
        ('עלה 20 ש"ח.', [("20", "20", None, "1", CURRENCY, "ILS", "")]),
        ("עלה ₪20.", [("₪20", "20", None, "1", CURRENCY, "ILS", "")]),
        ("יש לו ושלושה ילדים.", [("שלושה", "3", None, "1", COUNT, "", "")]),
        # a hedge written onto a number word (issue 44: "כמיליון" against 981,711)
        ("גרים כמיליון תושבים.", [("מיליון", "1000000", None, "1", COUNT, "", ABOUT)]),
        ("יש לו יותר משלושה ילדים.", [("שלושה", "3", None, "1", COUNT, "", AT_LEAST)]),
        ("נוסד ב-1948.", [("1948", "1948", None, "1", YEAR, "", "")]),
        # kept misses: a number word and its scale are read apart; a figure with a prefix
        # and no hyphen is not read at all
        (
            "שלושה מיליון איש.",
            [
                ("שלושה", "3", None, "1", COUNT, "", ""),
                ("מיליון", "1000000", None, "1", COUNT, "", ""),
            ],
        ),
        ("נוסד ב1948.", []),
    ],
)
def test_hebrew_numbers_are_read_with_what_they_mean(text, expected):
    assert read(text, "he") == expected


def test_a_number_is_also_matched_by_the_figure_before_its_scale_word():
    forms = [q.forms for q in quantities("2 million, two million, 2,000,000 and 12")]
    assert forms == [
        frozenset({"2000000", "2"}),
        frozenset({"2000000", "2"}),
        frozenset({"2000000"}),
        frozenset({"12"}),
    ]
    assert [q.forms for q in quantities("one million two hundred thousand")] == [
        frozenset({"1200000"})
    ]


@pytest.mark.parametrize(
    ("claim", "evidence", "stated"),
    [
        ("Roughly 40% of it.", "40.6% of it.", True),
        ("Roughly 40% of it.", "37% of it.", False),
        ("Almost 10% of it.", "9.6% of it.", True),
        ("Almost 10% of it.", "5% of it.", False),
        ("About 2,000 people.", "2,090 people.", True),
        ("About 2,000 people.", "2,400 people.", False),
    ],
)
def test_about_reaches_five_percent_of_the_figure(claim, evidence, stated):
    # `unsupported` lists the claim's numbers the evidence does not state: none when stated.
    assert (unsupported(claim, (evidence,)) == []) is stated


def test_a_hedge_written_onto_a_hebrew_number_word_reaches_five_percent():
    # Issue 44: "כמיליון" (about a million) against 981,711 was unsupported.
    evidence = ("בעיר גרים 981,711 תושבים.",)
    assert unsupported("בעיר גרים כמיליון תושבים.", evidence, "he") == []
    assert unsupported("בעיר גרים כמיליון תושבים.", ("בעיר גרים 700,000 תושבים.",), "he")
    assert unsupported("בעיר גרים מיליון תושבים.", evidence, "he")  # unhedged: exactly


@pytest.mark.parametrize(
    ("claim", "evidence", "aligned"),
    [
        (
            "It has about 2.1 million people.",
            "It has 2,102,650 people.",
            "It has 2,102,650 people.",
        ),
        # a bound stays a bound: the nearest value would say more than the claim
        ("Over 2 million live there.", "It has 2,102,650 people.", "Over 2 million live there."),
        (
            "Roughly 40% goes to schools.",
            "$20.3 million of a $50 million budget.",
            "40.6% goes to schools.",
        ),
        (
            "$29.7 million goes elsewhere.",
            "$20.3 million of a $50 million budget.",
            "$29,700,000 goes elsewhere.",
        ),
        # written as the evidence writes it, or not stated at all: left alone
        ("It has 1.5 million people.", "It has 1,500,000 people.", "It has 1.5 million people."),
        (
            "It has about 3.1 million people.",
            "It has 2,102,650 people.",
            "It has about 3.1 million people.",
        ),
        (
            "Between 2 and 3 million live there.",
            "It has 2,102,650 people.",
            "Between 2 and 3 million live there.",
        ),
    ],
)
def test_a_number_stated_rounded_or_derived_is_written_as_the_evidence_value(
    claim, evidence, aligned
):
    assert align_values(claim, (evidence,)) == aligned


def test_a_derivation_takes_its_two_numbers_from_one_passage():
    claim = "Roughly 40% goes to schools."
    assert not unsupported(claim, ("Schools get $20.3 million of a $50 million budget.",))
    assert unsupported(claim, ("Schools get $20.3 million.", "The budget is $50 million."))


@pytest.mark.parametrize(
    ("claim", "evidence", "missing"),
    [
        ("בירושלים גרים כ-970 אלף תושבים.", "בירושלים גרים 971,800 תושבים.", 0.0),
        ("בירושלים גרים כ-870 אלף תושבים.", "בירושלים גרים 971,800 תושבים.", 1.0),
        ("בירושלים גרים 971,800 תושבים.", "בירושלים גרים 971,800 תושבים.", 0.0),
    ],
)
def test_word_matching_counts_a_number_missing_only_when_no_value_states_it(
    claim, evidence, missing
):
    row = features(claim, evidence, profile("he"))
    assert row[FEATURE_NAMES.index("missing_number")] == missing
