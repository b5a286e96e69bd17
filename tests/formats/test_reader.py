"""Numbers in imported JSON (issue 10 item 12a): ASCII JSON number syntax, nothing more.

int() and float() also take other scripts' digits (Arabic-Indic, fullwidth), blanks and
underscores; the importers promise proto3 JSON, whose numbers are plain JSON numbers.
"""

from __future__ import annotations

import pytest

from grounding_app.formats import _reader as r
from grounding_app.formats.check_grounding_response import parse_check_response
from grounding_app.formats.imports import ImportFormatError

NOT_DIGITS = [
    "\u0661",  # ARABIC-INDIC DIGIT ONE
    "\uff11",  # FULLWIDTH DIGIT ONE
    "\u0967",  # DEVANAGARI DIGIT ONE
    "\U0001d7cf",  # MATHEMATICAL BOLD DIGIT ONE
    "1\u0660",
    "-\u0661",
]


@pytest.mark.parametrize(("raw", "expected"), [("0", 0), ("12", 12), ("-3", -3), ("007", 7)])
def test_integer_strings(raw: str, expected: int) -> None:
    assert r.integer("f", raw) == expected


@pytest.mark.parametrize("raw", [*NOT_DIGITS, "1_0", " 1", "1 ", "+1", "1.5", "", "0x1"])
def test_strings_that_are_not_integers(raw: str) -> None:
    with pytest.raises(ImportFormatError, match="expected an integer, got the string"):
        r.integer("f", raw)


@pytest.mark.parametrize(
    ("raw", "expected"), [("0", 0.0), ("0.75", 0.75), ("-1e-2", -0.01), ("2E3", 2000.0)]
)
def test_number_strings(raw: str, expected: float) -> None:
    assert r.number("f", raw) == expected


@pytest.mark.parametrize(
    "raw", [*NOT_DIGITS, "\uff10.5", "0.\u0665", "1e\u0661", "1_0", " 0.5", "+0.5", "inf"]
)
def test_strings_that_are_not_numbers(raw: str) -> None:
    with pytest.raises(ImportFormatError, match="expected a number, got the string"):
        r.number("f", raw)


@pytest.mark.parametrize(
    ("claim", "field"),
    [
        ({"startPos": "\u0660", "endPos": "6"}, "claims[0].startPos"),
        ({"endPos": "\uff16"}, "claims[0].endPos"),
        ({"endPos": 6, "citationIndices": ["\u0660"]}, "claims[0].citationIndices[0]"),
        ({"endPos": 6, "score": "\u0660.\u0665"}, "claims[0].score"),
    ],
)
def test_importers_refuse_other_digits(claim: dict[str, object], field: str) -> None:
    response = {"citedChunks": [{"chunkText": "c", "source": "0"}], "claims": [claim]}
    with pytest.raises(ImportFormatError) as caught:
        parse_check_response(response, "Hello.")
    assert caught.value.field == field
