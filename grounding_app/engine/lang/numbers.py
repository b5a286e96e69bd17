# ruff: noqa: RUF001, RUF002
"""The language profile's number reader: every number of a text, with what it means.

One reader for the engine: the checks, the verifier's text (`normalise`) and the lexical
features all read numbers here. A number is read with its value, the rounding step its
writer used ("2.1 million": 100,000; "2,102,650": 1; "40%": 1 point), its kind (a count,
a percentage, an amount of a currency, a measure, a year, a date's day, an ordinal, a
range), the hedge before it and its span in the text:

* digits with separators and decimals ("2,102,650", "2.5", "١٢", "１２"), a scale word
  after them ("2.1 million", "970 אלף", "1.5 מיליארד") or written onto them ("2.1M",
  "10k", "3bn"; "$50m" only after a currency sign, since "5m" is also five metres);
* English number words ("two million", "twenty-one", "one hundred and five") and
  Hebrew ones ("שלושה", "אלפיים"), one word at a time, prefixes shed ("ושלושה");
* percentages ("40%", "40 percent", "40 אחוז"), currencies ("$", "€", "£", "₪" before,
  "dollars", 'ש"ח' after), units of measure ("300 metres");
* hedges: "about", "roughly", "nearly", "כ-" ... (both ways within the rounding);
  "over", "more than", "at least", "יותר מ-" (a lower bound); "under", "up to", "פחות
  מ-" (an upper bound);
* ranges ("10–12", "10 to 12", "between 10 and 12", "$10-12 million");
* in the evidence, for `unsupported`, a count a noun states ("the trio": 3).

Fractions in words are read as percentages, hedged "about" (a writer's "two-thirds" is
rarely exactly 66.7 %): a number word before a denominator ("two-thirds", "three
quarters", "one fifth"), or "a" before one and "of" ("a third of the seats"). Not read,
on purpose: "half" and "a third" otherwise (far more often no quantity: "the second
half", "a third term"), Hebrew number words joined into compounds or with a scale word after
them ("שלושה מיליון" reads 3 and then the scale alone is no number), a figure with a
Hebrew prefix and no hyphen ("כ970", "ב2010").
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import partial
from itertools import permutations

from grounding_app.engine.lang import en, he
from grounding_app.engine.lang.text import Token
from grounding_app.engine.lang.text import read as read_text

__all__ = [
    "ABOUT",
    "AT_LEAST",
    "AT_MOST",
    "BETWEEN",
    "COUNT",
    "CURRENCY",
    "DATE",
    "MEASURE",
    "ORDINAL",
    "PERCENT",
    "YEAR",
    "Quantity",
    "align_values",
    "canonical_number",
    "is_number_word",
    "quantities",
    "raw_numbers",
    "supported",
    "unsupported",
]

# Kinds of number.
COUNT = "count"
PERCENT = "percent"
CURRENCY = "currency"
MEASURE = "measure"
YEAR = "year"
DATE = "date"  # a day beside a month's name ("4 July")
ORDINAL = "ordinal"
# Hedges: how the writer bounds the value.
ABOUT = "about"
AT_LEAST = "at least"
AT_MOST = "at most"
BETWEEN = "between"  # a range its writer says the value lies in ("between 10 and 12")

# A figure, and the scale word after it if any ("1.5 million", "2 dozen").
_LONG_SCALES = {**en.DIGIT_SCALES, **he.SCALES}
_SHORT_SCALES = {**en.SHORT_SCALES, **en.CURRENCY_SCALES}
_DIGIT_NUMBER = re.compile(
    r"(?<![\w.])(?P<sign>[-+−]?)(?P<int>\d[\d,٬]*)(?P<frac>[.٫]\d+)?(?!\d)"
    rf"(?:(?P<short>{'|'.join(sorted(_SHORT_SCALES, key=len, reverse=True))})(?!\w)"
    # Case is ignored in ASCII only: a dotted capital I or a long s matches "i" or "s"
    # ignoring case, but the word then lower-cases to no scale word.
    rf"|(?:[^\S\r\n]|-)+(?P<scale>(?ai:{'|'.join(_LONG_SCALES)}))(?!\w))?"
)
_CURRENCY_BEFORE = re.compile(
    "(?:" + "|".join(re.escape(s) for s in en.CURRENCY_SIGNS) + r")[^\S\r\n]?$"
)
_THOUSANDS = re.compile(r"\d{1,3}(?:[,٬]\d{3})+")
_JOINER = re.compile(r"[\s-]+")


def is_number_word(word: str) -> bool:
    """Whether ``word`` spells (part of) a number: it names a value, not a thing."""
    return word.casefold() in en.SPELLED_NUMBERS


def _ascii_digits(text: str) -> str:
    """Digits of any script as ASCII ("١٢" and "１２" -> "12")."""
    if text.isascii():
        return text
    return "".join(str(unicodedata.decimal(c)) if c.isdecimal() else c for c in text)


def _canonical(value: Decimal) -> str:
    text = format(value.normalize(), "f")
    return "0" if text == "-0" else text


def canonical_number(token: str) -> str:
    """One digit token ("+1,500", "2.50", "١٢") in canonical form ("1500", "2.5", "12").

    A token that is no number is returned as it came.
    """
    text = _ascii_digits(token).replace("−", "-").replace("٫", ".").replace("٬", ",")
    text = text.lstrip("+").rstrip(",")
    digits = text.lstrip("-")
    if _THOUSANDS.fullmatch(digits.split(".")[0]):
        text = text.replace(",", "")
    try:
        return _canonical(Decimal(text))
    except InvalidOperation:
        return token


@dataclass(frozen=True)
class RawNumber:
    start: int
    end: int
    value: str
    # The bare figure before a scale word ("200" of "200 million"), which also matches.
    figure: str | None = None
    # How `canonical_text` writes it, when a reader may not match it with another
    # spelling: "twenty-one" as "21", "١٢" as "12". Plain digits, single words
    # ("eleven"), ordinals ("twenty-first") and scale words stay as written.
    written: str | None = None
    ordinal: bool = False  # "fourth", "twenty-first": a rank, not a count
    # The rounding step the writer used: 1 for "2,102,650", 100,000 for "2.1 million".
    step: Decimal = Decimal(1)
    scaled: bool = False  # written with a scale word ("2.1 million", "970 אלף", "$50m")
    fraction: bool = False  # "two-thirds": `value` is in percent


def _digit_numbers(text: str) -> Iterator[RawNumber]:
    for match in _DIGIT_NUMBER.finditer(text):
        start, end = match.span()
        whole = _ascii_digits(match.group("int")).replace("٬", ",").rstrip(",")
        frac = _ascii_digits(match.group("frac") or "").replace("٫", ".")
        sign = "-" if match.group("sign") in ("-", "−") else ""
        if "," in whole and not _THOUSANDS.fullmatch(whole):
            # "1,2,3" is a list, not one number: all but the last stand alone.
            *alone, whole = whole.split(",")
            for part in filter(None, alone):
                yield RawNumber(start, end, _canonical(Decimal(part)))
            yield RawNumber(start, end, _canonical(Decimal(sign + whole + frac)))
            continue
        figure = Decimal(sign + whole.replace(",", "") + frac)
        scale = _scale(match, text)
        value = figure * scale if scale else figure
        if not scale:  # a comma after the figure is punctuation ("in 2009, it")
            end = match.start() + len(_figure_text(match).rstrip(",٬"))
        written = None
        if not text[start:end].isascii():
            written = _ascii_digits(text[start:end]).replace("٫", ".").replace("٬", ",")
        step = Decimal(1).scaleb(-len(frac) + 1 if frac else 0) * (scale or 1)
        yield RawNumber(
            start,
            end,
            _canonical(value),
            _canonical(figure) if scale else None,
            written,
            step=step,
            scaled=bool(scale),
        )


class _WordNumber:
    """A number being read from words, left to right ("one hundred and five")."""

    def __init__(self) -> None:
        self.total = 0  # finished thousands/millions groups
        self.current = 0  # the group being read, below 1000
        self.last = ""  # kind of the last word: a, unit, tens, hundred, scale, and, end
        self.scale = 0  # the last scale used; later ones must be smaller
        self.has_value = False
        self.words = 0
        self.ordinal = False
        self.figure: int | None = None  # the figure a single scale word multiplied

    def accepts(self, word: str, following: str) -> bool:
        last = self.last
        if last == "end":
            return False
        if word == "a":
            return last == "" and following in (*en.SCALES, "hundred", "dozen")
        if word == "and":
            return last in ("hundred", "scale") and following in (
                *en.UNITS,
                *en.TENS,
                *en.ORDINALS,
            )
        if word in en.LOW_ORDINALS:
            return last == "tens"
        if word in en.UNITS or word in en.ORDINALS:
            value = en.UNITS.get(word, en.ORDINALS.get(word, 0))
            if last == "tens":
                return 0 < value < 10
            return last in ("", "hundred", "scale", "and")
        if word in en.TENS:
            return last in ("", "hundred", "scale", "and")
        # Never bare: "2 hundred" is read with its digits, and is not also 100.
        if word == "hundred":
            return last in ("a", "unit") and self.current < 100
        if word == "dozen":
            return last in ("a", "unit", "tens") and not self.total
        if word in en.SCALES:
            return last in ("a", "unit", "tens", "hundred") and (
                not self.scale or en.SCALES[word] < self.scale
            )
        return False

    def add(self, word: str) -> None:
        self.words += 1
        self.ordinal = word in en.ORDINALS or word in en.LOW_ORDINALS
        self.figure = None
        if word in ("a", "and"):
            self.last = word
            return
        self.has_value = True
        if word in en.UNITS or word in en.LOW_ORDINALS:
            self.current += en.UNITS.get(word, en.LOW_ORDINALS.get(word, 0))
            self.last = "end" if word in en.LOW_ORDINALS else "unit"
        elif word in en.ORDINALS:
            value = en.ORDINALS[word]
            if value >= 1000:
                self.total += (self.current or 1) * value
                self.current = 0
            elif value == 100:
                self.current = (self.current or 1) * 100
            else:
                self.current += value
            self.last = "end"
        elif word in en.TENS:
            self.current += en.TENS[word]
            self.last = "tens"
        elif word == "hundred":
            self.current = (self.current or 1) * 100
            self.last = "hundred"
        elif word == "dozen":
            self.current = (self.current or 1) * 12
            self.last = "end"
        else:
            self.scale = en.SCALES[word]
            if not self.total:
                self.figure = self.current or 1
            self.total += (self.current or 1) * self.scale
            self.current = 0
            self.last = "scale"

    def found(self, start: int, end: int) -> Iterator[RawNumber]:
        """The number read, if any, spanning ``text[start:end]``."""
        if self.has_value:
            value = str(self.total + self.current)
            figure = None if self.figure is None else str(self.figure)
            plain = self.words > 1 and not self.ordinal and not self.scale
            rounded = self.scale and not self.current
            yield RawNumber(
                start,
                end,
                value,
                figure,
                value if plain else None,
                self.ordinal,
                step=Decimal(self.scale if rounded else 1),
                scaled=bool(rounded),
            )


def _fraction(start: int, end: int, count: int, parts: int) -> RawNumber:
    """A fraction in words as a percentage, to a tenth of its value: "two-thirds" is
    66.67 % and states 63.3-70 % (`_single` hedges it "about")."""
    value = (Decimal(100) * count / parts).quantize(Decimal("0.01"))
    return RawNumber(start, end, _canonical(value), step=value / 10, fraction=True)


# Where a number in words can start: a number word, or "a" before a scale or a
# denominator ("a million", "a third of"), which is one of these words too.
_NUMBER_WORDS = frozenset({*en.SPELLED_NUMBERS, *en.DENOMINATORS})


def _starts(runs: Sequence[Token]) -> list[int]:
    """The indices of the runs where a number in words may start (each number word and the
    run before it): the runs between them cannot start one, so a long fact's other words
    are only looked up, not read."""
    out: list[int] = []
    for index, run in enumerate(runs):
        if run.text.lower() in _NUMBER_WORDS:
            if index and (not out or out[-1] < index - 1):
                out.append(index - 1)
            if not out or out[-1] < index:
                out.append(index)
    return out


def _word_numbers(text: str) -> Iterator[RawNumber]:
    reading = read_text(text)
    if _NUMBER_WORDS.isdisjoint(reading.lower_letters):
        return
    tokens = reading.letter_runs
    starts = _starts(tokens)
    if not starts:
        return
    number = _WordNumber()
    start = end = 0

    def runs() -> Iterator[tuple[int, Token]]:
        i = starts[0]
        while i < len(tokens):
            yield i, tokens[i]
            i += 1
            if not number.last:
                # Nothing is being read: go on from the next run that may start a number.
                at = bisect_left(starts, i)
                i = starts[at] if at < len(starts) else len(tokens)

    for i, match in runs():
        word = match.text.lower()
        following = tokens[i + 1].text.lower() if i + 1 < len(tokens) else ""
        joined = i > 0 and _JOINER.fullmatch(text, tokens[i - 1].end, match.start)
        parts = en.DENOMINATORS.get(word, 0)
        if number.last == "unit" and joined and parts and not number.total:
            yield _fraction(start, match.end, number.current, parts)
            number = _WordNumber()
            continue
        after = tokens[i + 2].text.lower() if i + 2 < len(tokens) else ""
        if word == "a" and en.DENOMINATORS.get(following) and after == "of" and not number.last:
            yield _fraction(match.start, tokens[i + 1].end, 1, en.DENOMINATORS[following])
            continue
        if not (number.last and joined and number.accepts(word, following)):
            yield from number.found(start, end)
            number = _WordNumber()
            if not number.accepts(word, following):
                continue
            start = match.start
        number.add(word)
        end = match.end
    yield from number.found(start, end)


def raw_numbers(text: str) -> tuple[RawNumber, ...]:
    """The numbers of ``text`` in digits and words, in order: read once per text (the
    checks and the judge's alignments ask again for each claim a passage is shown with)."""
    return read_text(text).view("raw numbers", _raw_numbers)


def _raw_numbers(text: str) -> tuple[RawNumber, ...]:
    return tuple(sorted([*_digit_numbers(text), *_word_numbers(text)], key=lambda n: n.start))


def _figure_text(match: re.Match[str]) -> str:
    """The figure's own characters, without a scale after it."""
    end = match.end("frac") if match.group("frac") else match.end("int")
    return match.string[match.start() : end]


def _scale(match: re.Match[str], text: str) -> int:
    """The scale written after the figure, 0 if none: "m" and "b" only after a currency
    sign ("$50m"), since "5m" is also five metres."""
    long = match.group("scale")
    if long:
        return _LONG_SCALES[long.lower()]
    short = match.group("short")
    if short is None:
        return 0
    if short in en.CURRENCY_SCALES:
        before = text[max(0, match.start() - 4) : match.start()]
        if not _CURRENCY_BEFORE.search(before):
            return 0
    return _SHORT_SCALES[short]


def _hebrew_words(text: str) -> Iterator[RawNumber]:
    """Hebrew number words, one at a time, with their prefixes shed ("ושלושה" is 3). The
    number starts after its prefixes, so a hedge written onto it is read as one:
    "כמיליון" is about a million (981,711 is; read as exactly 1,000,000 it was not), and
    "יותר משלושה" more than three."""
    for run in read_text(text).letter_runs:
        found = [f for f in he.forms(run.text) if f in he.NUMBER_WORDS]
        if found:
            word = max(found, key=len)  # the fewest letters shed
            yield RawNumber(run.end - len(word), run.end, he.NUMBER_WORDS[word])


@dataclass(frozen=True)
class Quantity:
    """One number as its writer meant it."""

    start: int
    end: int
    value: Decimal  # a range's lower end
    step: Decimal  # the rounding step written
    kind: str  # COUNT, PERCENT, CURRENCY, MEASURE, YEAR, DATE or ORDINAL
    unit: str = ""  # a currency's code or a measure's unit ("USD", "km")
    hedge: str = ""  # ABOUT, AT_LEAST, AT_MOST or none
    high: Decimal | None = None  # a range's upper end
    # The canonical strings it is also matched by: its value, and the bare figure before
    # a scale word ("200 million" is also "200"), as numbers were matched before.
    forms: frozenset[str] = frozenset()
    lead: int = -1  # where its hedge starts ("about 2.1 million"), if it has one

    @property
    def ends(self) -> tuple[Decimal, ...]:
        return (self.value,) if self.high is None else (self.value, self.high)


def _profile_tables(language: str) -> tuple[tuple[tuple[str, str], ...], tuple[str, ...]]:
    """(hedge phrase, hedge) pairs, longest first, and percent words, of a language."""
    hedges = [(p, ABOUT) for p in en.ABOUT]
    hedges += [(p, AT_LEAST) for p in en.AT_LEAST] + [(p, AT_MOST) for p in en.AT_MOST]
    percent = list(en.PERCENT_WORDS)
    if language == "he":
        hedges += [(p, ABOUT) for p in he.ABOUT]
        hedges += [(p, AT_LEAST) for p in he.AT_LEAST] + [(p, AT_MOST) for p in he.AT_MOST]
        percent += he.PERCENT_WORDS
    hedges.sort(key=lambda item: -len(item[0]))
    return tuple(hedges), tuple(sorted(percent, key=len, reverse=True))


_NEXT_WORD = re.compile(r"(?:[^\S\r\n]*|-)([^\W\d_]+(?:[\"\u05f4][^\W\d_]+)?|°[CFcf])")
_ORDINAL_SUFFIX = re.compile(r"(?:st|nd|rd|th)\b", re.IGNORECASE)
_SPACE_OR_HYPHEN = " \t-\u05be"


def _hedge(before: str, phrases: tuple[tuple[str, str], ...]) -> tuple[str, int]:
    """The hedge that ends ``before`` (the text up to a number), if any, and where it
    starts; else none, and the end of ``before``."""
    kept = before.rstrip(_SPACE_OR_HYPHEN)
    tail = kept[-24:].casefold()
    for phrase, hedge in phrases:
        if tail.endswith(phrase):
            rest = tail[: -len(phrase)]
            if not rest or not rest[-1].isalnum():
                return hedge, max(0, len(kept) - len(phrase))
    return "", len(before)


def _percent(after: str, words: tuple[str, ...]) -> int:
    """The length of the percent sign or word that opens ``after``, 0 if none."""
    stripped = after.lstrip(" \t")
    lowered = stripped[:20].casefold()
    for word in words:
        if lowered.startswith(word):
            rest = lowered[len(word) :]
            if word == "%" or not rest or not rest[0].isalnum():
                return len(after) - len(stripped) + len(word)
    return 0


def _single(text: str, number: RawNumber, language: str) -> Quantity:
    hedges, percent_words = _profile_tables(language)
    start, end = number.start, number.end
    value = Decimal(number.value)
    kind, unit = COUNT, ""
    sign = _CURRENCY_BEFORE.search(text[max(0, start - 4) : start])
    if sign:
        kind, unit = CURRENCY, en.CURRENCY_SIGNS[sign.group().strip()]
        start -= len(sign.group())
    width = _percent(text[end:], percent_words)
    following = _NEXT_WORD.match(text, end)
    word = following.group(1).casefold() if following else ""
    if width:
        kind, unit, end = PERCENT, "", end + width
    elif word in en.CURRENCY_WORDS or word in he.CURRENCY_WORDS:
        kind, unit = CURRENCY, en.CURRENCY_WORDS.get(word) or he.CURRENCY_WORDS[word]
    elif kind == COUNT:
        kind, unit = _plain_kind(text, number, value, word)
    forms = frozenset(filter(None, (number.value, number.figure)))
    hedge, lead = _hedge(text[:start], hedges)
    if number.fraction:
        kind, unit, hedge = PERCENT, "", hedge or ABOUT
    return Quantity(start, end, value, number.step, kind, unit, hedge, None, forms, lead)


def _plain_kind(text: str, number: RawNumber, value: Decimal, word: str) -> tuple[str, str]:
    """The kind of a number that is neither a percentage nor an amount of money."""
    written = text[number.start : number.end]
    if number.ordinal or _ORDINAL_SUFFIX.match(text, number.end):
        return ORDINAL, ""
    if written.isdigit() and len(written) == 4 and 1000 <= value <= 2100:
        return YEAR, ""
    before = read_text(text).letters(max(0, number.start - 12), number.start)
    if word in en.MONTHS or (before and before[-1].casefold() in en.MONTHS):
        return DATE, ""
    if word in en.MEASURES:
        return MEASURE, en.MEASURES[word]
    return COUNT, ""


def _range(text: str, low: Quantity, high: Quantity, scaled: bool) -> Quantity | None:
    """``low`` and ``high`` read as one range, if the text joins them as one."""
    gap = text[low.end : high.start].strip().casefold()
    if gap not in en.RANGE_JOINERS:
        return None
    hedge = low.hedge
    if gap in en.RANGE_OPENERS:
        opener = read_text(text).letters(max(0, low.start - 12), low.start)
        if not opener or opener[-1].casefold() != en.RANGE_OPENERS[gap]:
            return None
        hedge = BETWEEN
    if gap in "–—-" and (
        re.search(r"\d[-/.]$", text[: low.start]) or re.match(r"[-/.]\d", text[high.end :])
    ):
        return None  # a date or a code ("2010-05-12"), not a range
    value = low.value
    if scaled and low.step == 1 and high.step > 1 and value * high.step < high.value:
        value *= high.step  # "$10-12 million": the scale is written once
    kind = high.kind if low.kind in (COUNT, high.kind) else low.kind
    if value >= high.value or (kind != high.kind and high.kind != COUNT):
        return None
    unit = low.unit or high.unit
    return Quantity(
        low.start, high.end, value, high.step, kind, unit, hedge, high.value,
        low.forms | high.forms, low.lead,
    )  # fmt: skip


def quantities(text: str, language: str = "en") -> tuple[Quantity, ...]:
    """Every number of ``text``, as ``language`` writes them, in order; ranges as one
    (read once per text and language, with the text's other readings)."""
    return read_text(text).view(("quantities", language), partial(_quantities, language=language))


def _quantities(text: str, language: str) -> tuple[Quantity, ...]:
    numbers: Sequence[RawNumber] = raw_numbers(text)
    if language == "he":
        spans = [(n.start, n.end) for n in numbers]
        words = [
            w for w in _hebrew_words(text) if not any(a < w.end and w.start < b for a, b in spans)
        ]
        numbers = sorted([*numbers, *words], key=lambda n: n.start)
    read = [(_single(text, n, language), n.scaled) for n in numbers]
    out: list[Quantity] = []
    i = 0
    while i < len(read):
        single, _ = read[i]
        if i + 1 < len(read):
            joined = _range(text, single, read[i + 1][0], read[i + 1][1])
            if joined is not None:
                out.append(joined)
                i += 2
                continue
        out.append(single)
        i += 1
    return tuple(out)


# --- comparing: which derivations count, and why no others, is `checks/numbers.py`'s -----

_HUNDRED = Decimal(100)
# "About", "roughly", "nearly" reach past the written rounding to a round figure near the
# value: 5 % of it ("roughly 40%" for 40.6 %, "about 2.1 million" for 2,102,650), not the
# figure's trailing zeros ("almost 10%" is not 5 %).
_ABOUT_SHARE = Decimal("0.05")
# Kinds that are labels more than amounts: no share, sum or difference is made of them.
_NOT_AMOUNTS = (YEAR, DATE, ORDINAL)
# Kinds a sum or difference is made of: amounts of one currency or unit. Two counts of
# one sentence are too often of different things (wins and goals, "two years", "four").
_SUMMED = (CURRENCY, MEASURE)


def _compatible(claim: Quantity, evidence: Quantity) -> bool:
    """Whether an evidence number may state the claim's, as far as its kind goes."""
    if PERCENT in (claim.kind, evidence.kind):
        return claim.kind == evidence.kind
    if claim.kind in (CURRENCY, MEASURE) and evidence.kind == claim.kind:
        return claim.unit == evidence.unit
    return True


def _comparable(claim: Quantity, evidence: Quantity) -> bool:
    """Whether an evidence number's value may be rounded, bounded or derived to the
    claim's: a year only to a year (a count of 2,010 is no year 2010 "about" it), a
    measure only to a measure ("up to 100 jobs" is not stated by "a 90-day wait")."""
    for kind in (YEAR, MEASURE):
        if kind in (claim.kind, evidence.kind) and claim.kind != evidence.kind:
            return False
    return _compatible(claim, evidence)


def _within(claim: Quantity, end: Decimal, value: Decimal) -> bool:
    """Whether ``value`` is what the claim's figure ``end`` says, by its hedge."""
    # A bound is read as its writer's rounding of a value near it, within a factor of
    # two: "fewer than 125,000" is not stated by every smaller number of the evidence.
    if claim.hedge == AT_LEAST:
        return end <= value <= 2 * end
    if claim.hedge == AT_MOST:
        return end / 2 <= value <= end
    reach = claim.step / 2
    if claim.hedge == ABOUT:
        reach = max(reach, abs(end) * _ABOUT_SHARE)
    return abs(value - end) <= reach


def _derived(claim: Quantity, passage: Sequence[Quantity]) -> Iterable[Decimal]:
    """The values one passage's numbers state together: shares, changes, sums and
    differences."""
    if claim.kind == MEASURE and claim.unit == "year":
        yield from _years_between(passage)
    amounts = [q for q in passage if q.kind not in _NOT_AMOUNTS and q.high is None]
    for a, b in permutations(amounts, 2):
        if claim.kind == PERCENT:
            if a.kind != PERCENT and _same_kind(a, b) and 0 < a.value < b.value:
                yield a.value / b.value * _HUNDRED
            if a.kind != PERCENT and _same_kind(a, b) and 0 < a.value < b.value:
                # A rise from a to b ("from 17,300 to 19,000": up 9.8%, "almost 10%"). A
                # fall is the complement of a share (from 50 to 20.3 is down 59.4%, and
                # "60% of the budget goes to schools" would pass), so it is not read.
                yield (b.value - a.value) / a.value * _HUNDRED
            if a.kind == b.kind == PERCENT and a.value > b.value:
                yield a.value - b.value
            continue
        if a.kind == PERCENT and b.kind != PERCENT and _comparable(claim, b):
            yield a.value * b.value / _HUNDRED
        if _same_kind(a, b) and a.kind in _SUMMED and _comparable(claim, a):
            yield a.value + b.value
            if a.value > b.value:
                yield a.value - b.value


def _years_between(passage: Sequence[Quantity]) -> Iterator[Decimal]:
    """The spans, in years, from one year a passage states to a later one, counted both
    ways writers count calendar years: 2006 to 2015 is 9 years, and "the 10 years
    2006-2015" (a "10-year period" of the figures of 2006 and 2015)."""
    years = sorted({q.value for q in passage if q.kind == YEAR and q.high is None})
    spans = [(a, b) for i, a in enumerate(years) for b in years[i + 1 :]]
    spans += [(q.value, q.high) for q in passage if q.kind == YEAR and q.high is not None]
    for first, last in spans:
        yield last - first
        yield last - first + 1


def _same_kind(a: Quantity, b: Quantity) -> bool:
    return a.kind == b.kind and a.unit == b.unit


def _stated(
    claim: Quantity, end: Decimal, passages: Sequence[Sequence[Quantity]]
) -> Quantity | Decimal | None:
    """What supports one end of the claim's number: an evidence number, or a value
    two of one passage's numbers make together; None if nothing does."""
    for passage in passages:
        for q in passage:
            if _comparable(claim, q) and any(_within(claim, end, v) for v in q.ends):
                return q
    # A bound ("more than 20%") is read against stated numbers only: a share or a sum
    # of a passage's numbers lands within a bound's wide reach too easily.
    if claim.kind in _NOT_AMOUNTS or claim.hedge in (AT_LEAST, AT_MOST):
        return None
    for passage in passages:
        for value in _derived(claim, passage):
            if _within(claim, end, value):
                return value
    return None


def supported(claim: Quantity, passages: Sequence[Sequence[Quantity]]) -> bool:
    """Whether the evidence's numbers (per passage) state the claim's number."""
    written = (q.forms for passage in passages for q in passage if _compatible(claim, q))
    held = frozenset().union(*written)
    if claim.high is None and claim.forms & held:
        return True
    if claim.hedge == BETWEEN and claim.high is not None:
        inside = any(
            claim.value <= q.value <= claim.high
            for passage in passages
            for q in passage
            if q.high is None and _comparable(claim, q)
        )
        if inside:
            return True
    return all(
        _canonical(end) in held or _stated(claim, end, passages) is not None for end in claim.ends
    )


# A figure hyphened onto a word with a capital letter is part of a name, not an amount
# the evidence must state: "COVID-19" where an abstract says "SARS-CoV-2", "GPT-4",
# "F-16" (a name swapped is `substitution`'s). At a sentence's start the capital is the
# sentence's ("Mid-2020", "Under-21s"), unless another letter of the word is one too.
_NAME_BEFORE = re.compile(r"(?:^|(?P<lead>[.!?:]?)\s*)(?P<word>[^\W\d_]+)-$")


def _in_name(text: str, number: Quantity) -> bool:
    match = _NAME_BEFORE.search(text[max(0, number.start - 40) : number.start])
    if match is None or not text[number.start].isdigit():
        return False
    word = match.group("word")
    capitals = sum(c.isupper() for c in word)
    at_start = match.start("word") == 0 or bool(match.group("lead"))
    return capitals > 1 or (capitals == 1 and not at_start)


def _collective_counts(text: str) -> frozenset[Decimal]:
    """The counts ``text`` states with a noun ("the trio": 3; `en.COLLECTIVE_COUNTS`)."""
    words = (run.text.casefold() for run in read_text(text).letter_runs)
    return frozenset(Decimal(en.COLLECTIVE_COUNTS[w]) for w in words if w in en.COLLECTIVE_COUNTS)


def _counted(claim: Quantity, passages: Sequence[str]) -> bool:
    """Whether a passage states the claim's count with a noun ("three people": "the
    trio"); exactly, or "about" it, and only a count, never a measure ("2 days")."""
    if claim.kind != COUNT or claim.high is not None or claim.hedge not in ("", ABOUT):
        return False
    return any(
        claim.value in read_text(p).view("collective counts", _collective_counts) for p in passages
    )


def unsupported(claim: str, passages: Sequence[str], language: str = "en") -> list[Quantity]:
    """The claim's numbers that the evidence passages do not state."""
    read = [quantities(p, language) for p in passages]
    return [
        q
        for q in quantities(claim, language)
        if not supported(q, read) and not _in_name(claim, q) and not _counted(q, passages)
    ]


def _written(claim: Quantity, value: Decimal) -> str:
    """A derived value as the claim's kind writes it ("40.6%", "$29,700,000")."""
    if claim.kind == PERCENT:
        return f"{_canonical(value.quantize(Decimal('0.1')))}%"
    whole = value.quantize(Decimal("0.01")).normalize()
    figure = f"{whole:,f}"
    signs = [s for s, code in en.CURRENCY_SIGNS.items() if code == claim.unit]
    sign = min(signs, key=len, default="")
    return f"{sign}{figure}" if claim.kind == CURRENCY else figure


def align_values(claim: str, passages: Sequence[str], language: str = "en") -> str:
    """``claim`` with each number the evidence states only rounded, hedged or derived
    written as the evidence's value, hedge and all, for a reader that compares figures
    and does no arithmetic: "about 2.1 million" -> "2,102,650", "roughly 40%" -> "40.6%"
    against "$20.3 million of a $50 million budget". A number the evidence writes as it
    is, in any spelling, is left to `normalise.align_numbers`; ranges stay."""
    read = [quantities(p, language) for p in passages]
    parts: list[str] = []
    position = 0
    for q in quantities(claim, language):
        lead = q.lead if q.hedge else q.start
        written = (e.forms for passage in read for e in passage if _compatible(q, e))
        if q.high is not None or lead < position or q.forms & frozenset().union(*written):
            continue
        if q.hedge in (AT_LEAST, AT_MOST):
            continue  # a bound stays a bound: the nearest value would say more
        found = _stated(q, q.value, read)
        if found is None:
            continue
        if isinstance(found, Quantity):
            where = next(i for i, passage in enumerate(read) if found in passage)
            text = passages[where][found.start : found.end]
        else:
            text = _written(q, found)
        parts += [claim[position:lead], text]
        position = q.end
    parts.append(claim[position:])
    return "".join(parts)
