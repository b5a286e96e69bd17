"""Every CSV export's cells: a spreadsheet opens them as text, never as a formula."""

from __future__ import annotations

import csv
import io

import pytest

from grounding_app.formats.csv_cells import csv_line, safe_cell


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("=1+2", "'=1+2"),
        ("+SUM(A1)", "'+SUM(A1)"),
        ("-2", "'-2"),
        ("@cmd", "'@cmd"),
        ("\t=1", "'\t=1"),
        ("\r=1", "'\r=1"),
        ("a=1", "a=1"),
        ("plain text", "plain text"),
        ("", ""),
        (None, ""),
        (0.5, "0.5"),
        (-1, "'-1"),
        # what spreadsheets skip (or that hides the sign) before a formula: issue 25 item 18
        (" =1+1", "' =1+1"),
        ("   +1", "'   +1"),
        ("\u00a0=1+1", "'\u00a0=1+1"),
        ("\u200b=1+1", "'\u200b=1+1"),
        ("\ufeff=1+1", "'\ufeff=1+1"),
        ("\x0b=1+1", "'\x0b=1+1"),
        ("\x0c@SUM(A1)", "'\x0c@SUM(A1)"),
        ('"=1+1', "'\"=1+1"),
        ('" =HYPERLINK("x")', '\'" =HYPERLINK("x")'),
        ("\u3000-1", "'\u3000-1"),
        ("\n=1", "'\n=1"),
        ("\u2060\u200d=1", "'\u2060\u200d=1"),
        # invisible, filler and fullwidth characters, and a pipe: issue 32 item 14
        ("\u00ad=1+1", "'\u00ad=1+1"),
        ("\u034f=1+1", "'\u034f=1+1"),
        ("\u061c=1+1", "'\u061c=1+1"),
        ("\u2062=1+1", "'\u2062=1+1"),
        ("\u3164=1+1", "'\u3164=1+1"),
        ("\u2800=1+1", "'\u2800=1+1"),
        ("\uff1d1+1", "'\uff1d1+1"),
        ("\uff0bSUM(A1)", "'\uff0bSUM(A1)"),
        ("|=1+1", "'|=1+1"),
        ("x;\u00ad|=1", "x;'\u00ad|=1"),
        ("| a table |", "| a table |"),
        # a spreadsheet that splits lines on ";" starts a cell after each
        ("x;=1+1;", "x;'=1+1;"),
        ("x; =1;y;@z", "x;' =1;y;'@z"),
        (";-2", ";'-2"),
        ("a;b", "a;b"),
        ("a; b=1", "a; b=1"),
        # plain text stays as it was
        ("x = 1", "x = 1"),
        ("  plain", "  plain"),
        ('"quoted"', '"quoted"'),
        ("email@example.com", "email@example.com"),
    ],
)
def test_safe_cell(value: object, expected: str) -> None:
    assert safe_cell(value) == expected


def test_a_guarded_cell_reads_back_through_csv() -> None:
    for value in (' "=1', "x;=1+1;", "\u00a0=1"):
        assert next(csv.reader(io.StringIO(csv_line([value])))) == [safe_cell(value)]


def test_csv_line_quotes_and_reads_back() -> None:
    line = csv_line(["a,b", 'say "hi"', "=HYPERLINK()", "line\nbreak", None])
    assert line.endswith("\r\n")
    assert next(csv.reader(io.StringIO(line))) == [
        "a,b",
        'say "hi"',
        "'=HYPERLINK()",
        "line\nbreak",
        "",
    ]
