"""The claim's numbers and names in a passage, and the passage an unsupported claim's
words are measured against: what the review page marks in a claim's evidence card."""

from __future__ import annotations

from grounding_app.engine import NAME_MARK, NUMBER_MARK, best_passage, claim_marks

LAGOS = (
    "Lagos is the largest city in Nigeria. The city proper has about 15 million residents, "
    "and the metropolitan area more."
)


def _marked(passage: str, marks: list[tuple[int, int, str]]) -> list[tuple[str, str]]:
    raw = passage.encode("utf-8")
    return [(raw[a:b].decode("utf-8"), kind) for a, b, kind in marks]


def test_a_table_rows_numbers_and_names_are_marked_by_value() -> None:
    marks = claim_marks("| Lagos | 15,000,000 | Nigeria |", LAGOS)
    assert _marked(LAGOS, marks) == [
        ("Lagos", NAME_MARK),
        ("Nigeria", NAME_MARK),
        ("15 million", NUMBER_MARK),
    ]


def test_a_names_words_are_one_mark_and_spans_are_utf8_bytes() -> None:
    passage = "Le café (1997) stars Kate Winslet; it won eleven Oscars."
    marks = claim_marks("Kate Winslet won 11 Oscars in 1997.", passage)
    assert _marked(passage, marks) == [
        ("1997", NUMBER_MARK),
        ("Kate Winslet", NAME_MARK),
        ("eleven", NUMBER_MARK),
        ("Oscars", NAME_MARK),
    ]
    assert marks[0][0] == len("Le café (".encode())


def test_numbers_and_names_the_claim_lacks_are_not_marked() -> None:
    assert claim_marks("Tokyo has 14 million people.", LAGOS) == []


def test_the_best_passage_is_the_fact_sharing_most_words() -> None:
    facts = ["Tokyo is the capital of Japan.", LAGOS]
    found = best_passage("Lagos holds roughly 13 million people.", facts)
    assert found is not None and found[0] == 1 and "Lagos" in found[1]
    assert best_passage("Lagos holds 13 million people.", []) is None
