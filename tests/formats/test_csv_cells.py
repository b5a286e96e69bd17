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
    ],
)
def test_safe_cell(value: object, expected: str) -> None:
    assert safe_cell(value) == expected


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
