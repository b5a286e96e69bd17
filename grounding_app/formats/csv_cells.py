"""CSV lines that a spreadsheet opens as text: the one place every export makes them.

A cell starting with "=", "+", "-", "@", a tab or a carriage return is run as a formula
by spreadsheet programs (CSV injection), and so is one where such a sign follows only
what they skip or what hides it: spaces of any kind, zero-width, invisible and filler
characters (a soft hyphen, the invisible operators, Hangul fillers, the blank Braille
cell, bidirectional marks), a byte-order mark, line, form or vertical-tab breaks, a
double quote (`" =1+1`) or a pipe (`|=1+1`); the fullwidth signs (U+FF1D, U+FF0B,
U+FF0D, U+FF20) are read as the signs themselves. Such a cell gets a leading
apostrophe, which they show as text. A spreadsheet that splits lines on ";"
(the usual list separator where "," is the decimal comma) starts a new cell after each
one, so each ";"-separated part is guarded the same way (`x;=1+1;` -> `x;'=1+1;`).
Lines come one at a time, so exports stream.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable

# Skipped before a formula sign, or hiding it: whitespace of every kind, zero-width,
# joining, invisible and filler characters, bidirectional marks and isolates, variation
# selectors, the byte-order mark, the double quote and the pipe.
_SKIPPED = (
    " \t\n\r\x0b\x0c\x85\u00a0\u00ad\u034f\u061c\u115f\u1160\u1680\u17b4\u17b5"
    "\u180b-\u180f\u2000-\u200f\u2028-\u202f\u205f-\u206f\u2800\u3000\u3164"
    '\ufe00-\ufe0f\ufeff\uffa0"|'
)
# The signs a spreadsheet runs, fullwidth ones included (it reads them as ASCII).
_SIGNS = "=+\\-@\uff1d\uff0b\uff0d\uff20"
# Where a cell, or a ";"-separated part of one, would be read as a formula.
_FORMULA_PART = re.compile(f"(?:^|(?<=;))(?=[{_SKIPPED}]*[{_SIGNS}])")
_CONTROL_START = ("\t", "\r")


def safe_cell(value: object) -> str:
    """The value as text, with an apostrophe before each part a spreadsheet would run."""
    text = "" if value is None else str(value)
    guarded = _FORMULA_PART.sub("'", text)
    return f"'{guarded}" if guarded.startswith(_CONTROL_START) else guarded


class _Echo:
    """A file-like object whose write returns the line instead of storing it."""

    def write(self, value: str) -> str:
        return value


_WRITER = csv.writer(_Echo())


def csv_line(values: Iterable[object]) -> str:
    """One CSV line (with its line end) of the values, each made safe."""
    line: str = _WRITER.writerow([safe_cell(v) for v in values])
    return line
