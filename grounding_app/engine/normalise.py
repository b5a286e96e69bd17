# ruff: noqa: RUF002
"""What the judge and the lexical checks read: text normalised, never the spans.

Claims keep exact byte spans of the raw answer, but surface noise must not cost a claim
its support:

* Citation markers ("[1]", "[1][2]", "[1, 2]", "[^2]", "【3†source】") are removed before
  judging. "[1]" reads as a number the facts lack: it once cut a correct claim from
  0.87 to 0.24. ``CITATION_RUN`` is also what the sentence splitter keeps with the
  sentence a marker follows.
* Numbers get one canonical form, so the missing-number check compares values, not
  spellings: "eleven", "11", "١١" and "１１" are all "11"; "1.5 million" and
  "1,500,000" are both "1500000"; "21st" is 21. A number with a scale word also
  matches its bare figure ("200 million" and "$200m"), as all numbers did before.
  Spellings the judge itself does not match ("twenty-one" and "21", "١٢" and "12")
  are also written as digits in the text it reads (``canonical_text``).
* A claim's number that the evidence holds in another spelling is written as the
  evidence writes it, for the judge only (``align_numbers``): it read "1500" against
  "1,500" as a mismatch (0.98 -> 0.2), "1.5 million" against "1,500,000" too. The
  evidence is left as written, the way the judge was trained on it.

* A claim's date that the evidence writes another way is written as the evidence writes
  it, for the judge only (``align_dates``): "1950-07-04", "04/07/1950" and "4 July
  1950" against "July 4, 1950" read as other numbers (0.009); "Dec. 1997" against
  "December 19, 1997" as a name the facts lack.

Markdown links ("[1](url)") and footnote definitions ("[^1]: ...") are not markers.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass

from grounding_app.engine.lang import profile
from grounding_app.engine.lang.numbers import canonical_number, is_number_word, raw_numbers
from grounding_app.engine.lang.sentences import CITATION_RUN
from grounding_app.engine.lang.text import TAG, read

__all__ = [
    "CITATION_RUN",
    "align_dates",
    "align_numbers",
    "canonical_number",
    "canonical_numbers",
    "canonical_text",
    "is_number_word",
    "number_spans",
    "strip_citations",
]

# --- citation markers ------------------------------------------------------------------

_CITATIONS = re.compile(rf"^[ \t]*{CITATION_RUN}[ \t]*|[ \t]*{CITATION_RUN}", re.MULTILINE)


def _spaced_word_char(char: str) -> bool:
    """A letter or digit of a script that puts spaces between words (not CJK)."""
    return char.isalnum() and unicodedata.east_asian_width(char) not in ("W", "F")


def strip_citations(text: str) -> str:
    """``text`` without citation markers and the spaces before them.

    "Paris is the capital of France [1]." -> "Paris is the capital of France."; a marker
    between two words leaves one space ("cited[1]here" -> "cited here").
    """

    def replace(match: re.Match[str]) -> str:
        before = text[match.start() - 1] if match.start() else ""
        after = text[match.end()] if match.end() < len(text) else ""
        return " " if _spaced_word_char(before) and _spaced_word_char(after) else ""

    return _CITATIONS.sub(replace, text)


_RUN_OF_SPACES = re.compile(r"[ \t]{2,}")


def strip_markup(text: str) -> str:
    """``text`` without HTML or XML tags, which say nothing a fact could support.

    Answers carry inline HTML ("<b>1997</b>") and summarisers' sentence tags ("<t> it
    sank . </t>"); the judge reads the words. A tag becomes a space, and runs of spaces
    one: "<t> it sank . </t>" -> "it sank .".
    """
    if "<" not in text:
        return text
    return _RUN_OF_SPACES.sub(" ", TAG.sub(" ", text)).strip()


# --- numbers (read by `lang.numbers`) ---------------------------------------------------


def number_spans(text: str) -> list[tuple[int, int, str]]:
    """(start, end, canonical value) of every number in ``text``, in digits or words."""
    return [(n.start, n.end, n.value) for n in raw_numbers(text)]


def canonical_text(text: str) -> str:
    """``text`` with the numbers a reader may not match across spellings as digits.

    "twenty-one", "one hundred and sixteen" and "١٢" become "21", "116" and "12". Single
    words ("eleven"), digits, ordinals and scale words ("2 million", "1,500,000") stay
    as written: the judge matches those, and a rewrite on one side only would cost it.
    """
    parts: list[str] = []
    position = 0
    for number in raw_numbers(text):
        if number.written is not None and number.start >= position:
            parts.append(text[position : number.start])
            parts.append(number.written)
            position = number.end
    parts.append(text[position:])
    return "".join(parts)


def _plain_spans(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, value) of the cardinal numbers of ``text``, as ``align_numbers``
    may swap them: neither ordinals ("fourth") nor figures joined to letters ("4th",
    "5km")."""
    for number in raw_numbers(text):
        joined = number.end < len(text) and text[number.end].isalpha()
        if not (joined or number.ordinal):
            yield number.start, number.end, number.value


def align_numbers(claim: str, evidence: str) -> str:
    """``claim`` with each number that ``evidence`` holds in another spelling written as
    the evidence first writes it ("1500" -> "1,500", "1.5 million" -> "1,500,000").

    "One" and "zero" in words stay ("one of the", "none"): too often no figure at all.
    """
    written: dict[str, str] = {}
    for start, end, value in _plain_spans(evidence):
        written.setdefault(value, evidence[start:end])
    parts: list[str] = []
    position = 0
    for start, end, value in _plain_spans(claim):
        text = claim[start:end]
        form = written.get(value)
        if form is None or form == text or start < position:
            continue
        if value in ("0", "1") and not any(c.isdigit() for c in text):
            continue
        parts += [claim[position:start], form]
        position = end
    parts.append(claim[position:])
    return "".join(parts)


def canonical_numbers(text: str) -> set[str]:
    """Every number in ``text``, in digits or words, in canonical form.

    "It won eleven awards" and "It won 11 awards" both give {"11"}; "1.5 million" and
    "1,500,000" both {"1500000"}; "one hundred and five" {"105"}; "a dozen" {"12"}.
    """
    return {number.value for number in raw_numbers(text)}


# --- dates -------------------------------------------------------------------------------

# Dates are read in English's words (its profile's month names and patterns), whatever
# the text's language: numeric dates are read in every language.
_ENGLISH = profile("en")
_YEAR = r"(?P<year>\d{4})"
_FOUR_DIGITS = re.compile(r"\d{4}")
_DATES = (
    re.compile(rf"\b{_YEAR}-(?P<m>[01]?\d)-(?P<d>[0-3]?\d)\b"),
    re.compile(rf"\b(?P<a>[0-3]?\d)[/.](?P<b>[0-3]?\d)[/.]{_YEAR}\b"),
    *_ENGLISH.dates_in_words,
)


@dataclass(frozen=True)
class _Date:
    start: int
    end: int
    readings: frozenset[tuple[int, int, int]]  # (year, month, day); day 0: none given


def _valid(year: int, month: int, day: int) -> bool:
    return 1 <= month <= 12 and day <= 31


def _dates(text: str) -> tuple[_Date, ...]:
    """`_read_dates`, once per text: each evidence text is read for every claim it is
    shown with (the largest request shows 200 facts' windows to 200 claims)."""
    return read(text).view("dates", _read_dates)


def _read_dates(text: str) -> tuple[_Date, ...]:
    """The dates of ``text``; where two forms overlap, the fuller one (the patterns'
    order: a month and year only when no day goes with them). A numeric date in
    day-month or month-day order ("04/07/1950") has both readings."""
    found: list[_Date] = []
    taken: list[tuple[int, int]] = []
    if not _FOUR_DIGITS.search(text):
        # Every date form holds a year: a passage without four digits in a row holds
        # none, and its patterns (each month name in turn) need not run.
        return ()
    # A date in words holds a month's name as a word of its own.
    in_words = not _ENGLISH.written_months.keys().isdisjoint(read(text).lower_letters)
    for pattern in _DATES if in_words else _DATES[:2]:
        for m in pattern.finditer(text):
            if any(m.start() < end and start < m.end() for start, end in taken):
                continue
            year = int(m.group("year"))
            groups = m.groupdict()
            if groups.get("m") is not None:
                candidates = {(year, int(m.group("m")), int(m.group("d")))}
            elif groups.get("a") is not None:
                a, b = int(m.group("a")), int(m.group("b"))
                candidates = {(year, b, a), (year, a, b)}
            else:
                # Matched ignoring case, a name may lower-case to none ("APRİL"): no date.
                month = _ENGLISH.written_months.get(m.group("month").lower(), 0)
                if not month:
                    continue
                day = int(groups["day"]) if groups.get("day") else 0
                candidates = {(year, month, day)}
            # Day 0 stands for none given, which only a month and year may have.
            readings = frozenset(
                r for r in candidates if _valid(*r) and (r[2] > 0 or "day" not in groups)
            )
            if readings:
                found.append(_Date(m.start(), m.end(), readings))
                taken.append(m.span())
    return tuple(sorted(found, key=lambda d: d.start))


_YEAR_WRITTEN = re.compile(r"(?<![\w.,])[12]\d{3}(?![\w,]|\.\d)")


def _decades(claim: str, evidence: str) -> str:
    """``claim`` with a decade that holds a year of ``evidence`` written as that year:
    "founded in the 1990s" reads "founded in 1994" against "founded in 1994", which
    implies it. Read as its first year, the decade was a number the evidence lacked."""
    years = [m.group() for m in _YEAR_WRITTEN.finditer(evidence)]

    def year_in(match: re.Match[str]) -> str:
        start = int(match.group("decade"))
        return next((y for y in years if start <= int(y) < start + 10), match.group())

    return _ENGLISH.decade.sub(year_in, claim)


def date_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of every date in ``text``, in characters ("17 February 1991")."""
    return [(d.start, d.end) for d in _dates(text)]


def dates_held(claim: str, evidence: str) -> list[str]:
    """The claim's dates that the evidence also holds, in any form, as the claim writes
    them ("1945-10-24" where the evidence has "24 October 1945")."""
    held = {reading for date in _dates(evidence) for reading in date.readings}
    return [claim[d.start : d.end] for d in _dates(claim) if d.readings & held]


def align_dates(claim: str, evidence: str) -> str:
    """``claim`` with each date that ``evidence`` holds in another form written as the
    evidence writes it ("1950-07-04" -> "July 4, 1950"). A month and year the evidence
    gives with a day ("Dec. 1997" for "December 19, 1997") get the month's full name,
    and a decade that holds one of its years, that year (`_decades`).
    """
    claim = _decades(claim, evidence)
    written: dict[tuple[int, int, int], str] = {}
    months: set[tuple[int, int]] = set()
    for date in _dates(evidence):
        for reading in date.readings:
            written.setdefault(reading, evidence[date.start : date.end])
            months.add(reading[:2])
    parts: list[str] = []
    position = 0
    for date in _dates(claim):
        text = claim[date.start : date.end]
        form = next((written[r] for r in sorted(date.readings) if r in written), None)
        if form is None:
            year, month, day = min(date.readings)
            if day or (year, month) not in months:
                continue
            form = f"{_ENGLISH.month_names[month - 1]} {year}"
        if form != text:
            parts += [claim[position : date.start], form]
            position = date.end
    parts.append(claim[position:])
    return "".join(parts)
