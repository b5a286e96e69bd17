"""RAGAS rows and CSV files: both column namings, contexts as list or text, Excel's
quirks, non-ASCII kept, and each way a row can be wrong named."""

from __future__ import annotations

from typing import Any

import pytest

from grounding_app.engine import Fact
from grounding_app.formats._reader import ImportFormatError
from grounding_app.formats.ragas import (
    CsvRecord,
    is_ragas_csv,
    looks_like_row,
    parse_row,
    passages,
    read_csv,
)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (["a", "b"], ["a", "b"]),
        ('["a", "b"]', ["a", "b"]),
        ("['a', \"b's\"]", ["a", "b's"]),
        ("['שלום 😀']", ["שלום 😀"]),
        ('  ["x"]', ["x"]),
        ("one passage, not a list", ["one passage, not a list"]),
        ("", []),
        ([], []),
    ],
)
def test_passages_read_lists_and_list_text(value: object, expected: list[str]) -> None:
    assert passages("contexts", value) == expected


@pytest.mark.parametrize(
    ("value", "field", "words"),
    [
        ("['a'", "contexts", "not a list of strings"),
        ("[1, 2]", "contexts[0]", "expected a string, got a number"),
        ('[{"a": 1}]', "contexts[0]", "expected a string, got an object"),
        ("[__import__('os')]", "contexts", "not a list of strings"),
        (7, "contexts", "expected a list of strings, got a number"),
        (["a", None], "contexts[1]", "expected a string"),
    ],
)
def test_passages_refuse_what_is_not_a_list_of_strings(
    value: object, field: str, words: str
) -> None:
    with pytest.raises(ImportFormatError) as caught:
        passages("contexts", value)
    assert caught.value.field == field and words in caught.value.message


def test_both_namings_read_the_same() -> None:
    older = {
        "question": "q?",
        "contexts": ["The tower is 212 metres tall."],
        "answer": "It is 212 metres tall.",
        "ground_truth": "212 m",
    }
    newer = {
        "user_input": "q?",
        "retrieved_contexts": ["The tower is 212 metres tall."],
        "response": "It is 212 metres tall.",
        "reference": "212 m",
    }
    for row in (older, newer):
        record = parse_row(row)
        assert record.answer == "It is 212 metres tall."
        assert record.facts == (Fact("The tower is 212 metres tall.", {}),)
        assert record.meta == {"format": "ragas", "question": "q?", "reference": "212 m"}


def test_id_other_columns_and_reference_contexts_are_kept() -> None:
    record = parse_row(
        {
            "id": 17,
            "question": "q",
            "contexts": "['c1', '', 'c2']",
            "answer": "a",
            "ground_truths": ["r1", "r2"],
            "reference_contexts": ["rc"],
            "model": "m-1",
            "latency": 1.5,
            "nested": {"dropped": "as a label"},
        }
    )
    assert record.external_id == "17"
    assert [fact.text for fact in record.facts] == ["c1", "c2"]  # a blank passage is no fact
    assert record.meta["reference"] == "r1\nr2"
    assert record.meta["reference_contexts"] == ["rc"]
    assert record.labels == {"model": "m-1", "latency": "1.5"}


def test_hebrew_and_emoji_survive() -> None:
    record = parse_row(
        {
            "user_input": "מה?",
            "retrieved_contexts": "['גובה 212 מטר 🏙️']",
            "response": "גובה 212 מטר. 🏙️",
        }
    )
    assert record.answer == "גובה 212 מטר. 🏙️"
    assert record.facts[0].text == "גובה 212 מטר 🏙️"
    assert record.meta["question"] == "מה?"


@pytest.mark.parametrize(
    ("row", "field", "words"),
    [
        ({"question": "q", "answer": "a"}, "", "needs 'contexts' or 'retrieved_contexts'"),
        ({"question": "q", "contexts": ["c"]}, "", "needs 'answer' or 'response'"),
        ({"contexts": ["c"], "answer": "  "}, "answer", "the answer is empty"),
        ({"contexts": ["", " "], "answer": "a"}, "contexts", "no passage"),
        ({"contexts": ["c"], "answer": 3}, "answer", "expected a string, got a number"),
        ({"contexts": ["c"], "answer": "a", "response": "b"}, "response", "the same column"),
        (
            {"contexts": ["c"], "retrieved_contexts": ["d"], "answer": "a"},
            "retrieved_contexts",
            "the same column",
        ),
        ({"contexts": ["c"], "answer": "a", "id": [1]}, "id", "a string or an integer"),
        ({"contexts": ["c"], "answer": "a", "question": 5}, "question", "expected a string"),
        (["not", "an", "object"], "", "a RAGAS row is an object"),
    ],
)
def test_each_bad_row_says_what_is_wrong(row: Any, field: str, words: str) -> None:
    with pytest.raises(ImportFormatError) as caught:
        parse_row(row)
    assert caught.value.field == field
    assert words in caught.value.message


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ({"question": "q"}, True),
        ({"retrieved_contexts": []}, True),
        ({"reference": "r", "response": "x"}, True),
        ({"answer": "a", "response": "b"}, False),  # other formats use these words too
        ({"claim": "c", "facts": []}, False),
        ([{"question": "q"}], False),
    ],
)
def test_looks_like_row(data: object, expected: bool) -> None:
    assert looks_like_row(data) is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("question,contexts,answer\n", True),
        ("\ufeffQuestion ; Contexts ; Answer\r\n", True),
        ("user_input\tretrieved_contexts\tresponse\n", True),
        ("\n\nresponse,retrieved_contexts\n", True),
        ("question,answer\n", False),  # no contexts column
        ('{"question": "q"}\n', False),
        ("[1]\n", False),
        ("", False),
    ],
)
def test_is_ragas_csv(text: str, expected: bool) -> None:
    assert is_ragas_csv(text) is expected


def test_csv_with_excel_quirks() -> None:
    text = (
        "\ufeffQuestion;Contexts;Answer;;\r\n"
        '"Q1";"[\'a\', ""b\'s""]";"two\r\nlines";;\r\n'
        ";;;;\r\n"
        "מה?;['שלום 😀'];שלום. 😀;;\r\n"
        "x;y;z;w;\r\n"
    )
    assert list(read_csv(text)) == [
        CsvRecord(2, {"question": "Q1", "contexts": "['a', \"b's\"]", "answer": "two\nlines"}),
        CsvRecord(5, {"question": "מה?", "contexts": "['שלום 😀']", "answer": "שלום. 😀"}),
        CsvRecord(
            6,
            {"question": "x", "contexts": "y", "answer": "z"},
            "5 cells, but the header names 3 columns.",
        ),
    ]


def test_csv_line_numbers_count_blank_lines_before_the_header() -> None:
    records = list(read_csv("\n\nquestion,contexts,answer\nq,c,a\n"))
    assert records == [CsvRecord(4, {"question": "q", "contexts": "c", "answer": "a"})]


def test_csv_header_naming_a_column_twice_is_refused() -> None:
    with pytest.raises(ImportFormatError, match="names 'answer' twice"):
        list(read_csv("question,contexts,answer,Answer\nq,c,a,b\n"))


def test_csv_cell_over_the_default_field_limit_is_read() -> None:
    long = "x" * 200_000  # the csv module's default limit is 131,072 characters
    records = list(read_csv(f"contexts,answer\n\"['{long}']\",a\n"))
    assert records[0].cells["contexts"] == f"['{long}']"
