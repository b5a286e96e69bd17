"""Which words of an unsupported claim the evidence lacks: table tests of the pure logic."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from grounding_app.engine.unsupported import (
    ClaimToExplain,
    absent_phrases,
    best_evidence,
    evidence_passages,
    is_content,
    refine,
    unsupported_spans,
    vocabulary,
    words,
)

FILM = (
    "Titanic is a 1997 American epic romantic disaster movie. It was directed, written, "
    "and co-produced by James Cameron. It stars Kate Winslet and Leonardo DiCaprio. "
    "It carried over 1,500 people to their death."
)


def texts(answer: str, spans: Sequence[tuple[int, int]]) -> list[str]:
    raw = answer.encode("utf-8")
    return [raw[a:b].decode("utf-8") for a, b in spans]


@pytest.mark.parametrize(
    ("claim", "expected"),
    [
        ("It starred Brad Pitt and Kate Winslet.", ["Brad Pitt"]),
        ("Titanic was released in 1998.", ["released", "1998"]),
        ("Titanic was directed by Steven Spielberg and James Cameron.", ["Steven Spielberg"]),
        ("It carried over 1500 people.", []),  # thousands separators fold away
        ("It stars Kate Winslet.", []),
        ("Titanics were directing movies.", []),  # plural and -ing endings fold
        ("Titanic won 11 Oscars in Paris and Rome.", ["won 11 Oscars", "Paris", "Rome"]),
        ("Mbappé starred in Titanic.", ["Mbappé"]),
    ],
)
def test_absent_phrases(claim: str, expected: list[str]) -> None:
    assert texts(claim, absent_phrases(claim, 0, vocabulary(FILM))) == expected


@pytest.mark.parametrize(
    ("prefix", "claim", "expected"),
    [
        ("", "It starred Brad Pitt.", ["Brad Pitt"]),
        ("שלום עולם. ", "It starred Brad Pitt.", ["Brad Pitt"]),  # 2-byte letters before
        ("🌌 ok. ", "It starred 🌌 Brad Pitt.", ["Brad Pitt"]),  # 4-byte emoji
        ("", "הסרט ביים ג'יימס קמרון.", ["הסרט ביים ג'יימס קמרון"]),
    ],
)
def test_spans_are_utf8_byte_offsets_of_the_answer(
    prefix: str, claim: str, expected: list[str]
) -> None:
    answer = prefix + claim
    start = len(prefix.encode("utf-8"))
    [spans] = unsupported_spans([ClaimToExplain(claim, start)], [FILM])
    assert texts(answer, spans) == expected


def test_words_and_content() -> None:
    assert [w.text for w in words("It's 1,500 km/h in U.S. e-mail.")] == [
        "It's",
        "1,500",
        "km/h",
        "in",
        "U.S",
        "e-mail",
    ]
    assert [is_content(w) for w in ("the", "Paris", "a", "7", "x", "of")] == [
        False,
        True,
        False,
        True,
        False,
        False,
    ]


def test_best_evidence_is_the_fact_sharing_most_content_words() -> None:
    facts = [vocabulary("Paris is in France."), vocabulary(FILM), vocabulary("")]
    assert best_evidence("James Cameron directed Titanic.", facts) == 1
    assert best_evidence("Paris is big.", facts) == 0
    assert best_evidence("Nothing matches.", []) is None


def test_evidence_passages_keep_the_best_sentences_in_order() -> None:
    passages = evidence_passages("Kate Winslet starred in Titanic by James Cameron.", FILM)
    assert passages == (
        "It was directed, written, and co-produced by James Cameron. "
        "It stars Kate Winslet and Leonardo DiCaprio."
    )


def test_refine_keeps_the_phrases_whose_masking_raises_the_score() -> None:
    claim = "Titanic was released in 1998 by Fox."
    phrases = absent_phrases(claim, 0, vocabulary(FILM))
    assert texts(claim, phrases) == ["released", "1998", "Fox"]
    seen: list[str] = []

    def scorer(pairs: Sequence[tuple[str, str]]) -> list[float]:
        seen.extend(c for c, _ in pairs)
        return [0.9 if "1998" not in c else 0.1 for c, _ in pairs]

    kept = refine(claim, 0, FILM, phrases, scorer)
    assert texts(claim, kept) == ["1998"]
    assert seen[0] == claim and "1998" not in seen[2]


def test_refine_keeps_every_phrase_when_none_moves_the_score() -> None:
    claim = "Titanic was released in 1998."
    phrases = absent_phrases(claim, 0, vocabulary(FILM))
    assert refine(claim, 0, FILM, phrases, lambda pairs: [0.1] * len(pairs)) == phrases


def test_the_budget_limits_verifier_calls() -> None:
    calls: list[int] = []

    def scorer(pairs: Sequence[tuple[str, str]]) -> list[float]:
        calls.append(len(pairs))
        return [0.1] * len(pairs)

    claims = [ClaimToExplain("Titanic was released in 1998.", 0)] * 5
    unsupported_spans(claims, [FILM], scorer, refine_budget=7)
    assert calls == [3, 3]  # two claims of 2 phrases (+1 unmasked each) fit in 7 calls
    calls.clear()
    unsupported_spans(claims, [FILM], scorer, refine_budget=0)
    assert calls == []


def test_hebrew_one_letter_prefixes_are_read_off() -> None:
    fact = "בסרט שיחקו קייט וינסלט ולאונרדו דיקפריו."
    claim = "בסרט שיחקו בראד פיט וקייט וינסלט."
    assert texts(claim, absent_phrases(claim, 0, vocabulary(fact))) == ["בראד פיט"]


UN = "The United Nations was founded on 24 October 1945 in San Francisco."


@pytest.mark.parametrize(
    ("claim", "expected"),
    [
        # Forms the engine's checks count as matched are never underlined (issue 23).
        ("The UN was founded on 1945-10-24 in Paris.", ["Paris"]),
        ("The UN was founded on October 24, 1945.", []),
        # ... and a wrong date or name in another form still is.
        ("The UN was founded on 1946-10-24 in San Francisco.", ["1946-10-24"]),
        ("The EU was founded in 1945.", ["EU"]),
    ],
)
def test_names_and_dates_in_another_form_are_not_unsupported_words(claim, expected):
    (spans,) = unsupported_spans([ClaimToExplain(claim, 0)], [UN])
    assert texts(claim, spans) == expected


@pytest.mark.parametrize(
    ("claim", "expected"),
    [
        # A link's destination and title are no words; a phrase stops at its "](".
        ("It stars [Brad Pitt](https://en.wikipedia.org/wiki/Brad_Pitt).", ["Brad Pitt"]),
        ('It stars [Brad Pitt](<https://x.org/a b> "Brad Pitt bio").', ["Brad Pitt"]),
        # Emphasis, code and cell marks end a phrase and are never part of one.
        ("It stars **Brad** `Pitt` and **Tom Hanks**.", ["Brad", "Pitt", "Tom Hanks"]),
        ("It stars _Brad Pitt_ and __Tom__.", ["Brad Pitt", "Tom"]),
        ("| Brad Pitt | Tom Hanks |", ["Brad Pitt", "Tom Hanks"]),
        ("Brad Pitt ~~Tom Hanks~~", ["Brad Pitt", "Tom Hanks"]),
    ],
)
def test_absent_phrases_read_markdown_as_rendered(claim: str, expected: list[str]) -> None:
    found = texts(claim, absent_phrases(claim, 0, vocabulary(FILM + " It starred ran.")))
    assert found == expected
    assert not any(mark in phrase for phrase in found for mark in ("](", "**", "`", "|", "_B"))
