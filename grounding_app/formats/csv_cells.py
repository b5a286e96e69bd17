"""CSV lines that a spreadsheet opens as text: the one place every export makes them.

A cell starting with "=", "+", "-", "@", a tab or a carriage return is run as a formula
by spreadsheet programs (CSV injection); such a cell gets a leading apostrophe, which
they show as text. Lines come one at a time, so exports stream.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(value: object) -> str:
    text = "" if value is None else str(value)
    return f"'{text}" if text.startswith(_FORMULA_START) else text


class _Echo:
    """A file-like object whose write returns the line instead of storing it."""

    def write(self, value: str) -> str:
        return value


_WRITER = csv.writer(_Echo())


def csv_line(values: Iterable[object]) -> str:
    """One CSV line (with its line end) of the values, each made safe."""
    line: str = _WRITER.writerow([safe_cell(v) for v in values])
    return line
