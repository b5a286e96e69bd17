"""A text read once: the one word pattern, and each text's words and stems, memoised.

Every part of the engine that reads words (retrieval, the checks, the judges, the
unsupported-words step) reads them here, so a request's answer and facts are cut into
words once, and the same passage read by five checks costs one reading. A word is a run
of letters and digits; joiners inside a run (an apostrophe, a period, a hyphen, a comma
between digits, Hebrew's geresh and gershayim) keep it one *token* ("U.S.", "2,102,650",
"don't", "צה\"ל"); each reader takes the parts it needs by splitting a token at the
joiners it does not keep, never by a pattern of its own.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Callable
from functools import cached_property
from typing import NamedTuple, TypeVar

from grounding_app.engine.lang.en import NEGATIONS, STOPWORDS, stem

View = TypeVar("View")

# The one word pattern: letters and digits, with joiners between them.
_JOINERS = "'\u2019\u05f3\u05f4\".,:/-"
_TOKEN = re.compile(rf"[^\W_]+(?:[{re.escape(_JOINERS)}][^\W_]+)*")
# A run of letters: word characters that are no decimal digit (`str.isalnum` and not
# `str.isdecimal`, which is what `\w` and `\d` mean for str patterns).
_LETTERS = re.compile(r"[^\W\d_]+")

APOSTROPHES = frozenset("'\u2019")
# What a plain word keeps inside it: apostrophes ("don't") and, for Hebrew, the geresh,
# the gershayim and the ASCII quote written for it ("צה\"ל").
WORD_JOINERS = APOSTROPHES | frozenset('\u05f3\u05f4"')
# What a name keeps: "U.S.", "Jean-Paul", "O'Brien".
NAME_JOINERS = APOSTROPHES | frozenset(".-")
_UNSTEMMED = STOPWORDS | NEGATIONS  # words `content_stems` leaves out
# Where a token splits into plain words: a token's only non-alphanumeric characters are
# its joiners.
_WORD_SPLIT = re.compile(f"[{re.escape(''.join(sorted(set(_JOINERS) - WORD_JOINERS)))}]")
_NAME_SPLIT = re.compile(f"[{re.escape(''.join(sorted(set(_JOINERS) - NAME_JOINERS)))}]")


class Token(NamedTuple):
    """One run of the word pattern, with its character span in the text it was read from
    (a named tuple: a long fact has thousands, and a tuple is the quickest to make)."""

    text: str
    start: int
    end: int


def split_token(token: Token, keep: frozenset[str]) -> list[Token]:
    """The parts of a token between the joiners that are not in `keep` (a joiner stands
    between two letters or digits, so every part starts and ends with one)."""
    parts: list[Token] = []
    begin = 0
    text = token.text
    for i, char in enumerate(text):
        if not char.isalnum() and char not in keep:
            parts.append(Token(text[begin:i], token.start + begin, token.start + i))
            begin = i + 1
    parts.append(Token(text[begin:], token.start + begin, token.end))
    return parts


class Text:
    """One text, read on first use of each view and then kept (see `read`).

    The word views are properties; readers outside this module (numbers, the index's
    tokens, the unsupported-words vocabulary) keep theirs on the same object through
    `view`, so one bound and one `clear_text_caches` cover every reading of a text.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self._views: dict[object, object] = {}

    def view(self, key: object, make: Callable[[str], View]) -> View:
        """`make(text)`, made on first use under `key` and kept with the text: only for
        readings of the text alone whose result is immutable, as callers share it."""
        try:
            return self._views[key]  # type: ignore[return-value]
        except KeyError:
            made = self._views[key] = make(self.text)
            return made

    @cached_property
    def tokens(self) -> tuple[Token, ...]:
        return tuple(Token(m.group(), *m.span()) for m in _TOKEN.finditer(self.text))

    @cached_property
    def token_texts(self) -> tuple[str, ...]:
        """The tokens without spans: what most readers of a long fact need, at a fraction
        of the cost of the spans."""
        return tuple(_TOKEN.findall(self.text))

    def parts(self, keep: frozenset[str]) -> tuple[Token, ...]:
        """The tokens split at every joiner outside `keep`, with their spans."""
        out: list[Token] = []
        for token in self.tokens:
            if token.text.isalnum() or all(char.isalnum() or char in keep for char in token.text):
                out.append(token)
            else:
                out.extend(split_token(token, keep))
        return tuple(out)

    @cached_property
    def word_tokens(self) -> tuple[Token, ...]:
        return self.parts(WORD_JOINERS)

    @cached_property
    def words(self) -> tuple[str, ...]:
        """Plain words as written (case kept): "don't" is one, "U.S." two (the texts of
        `word_tokens`, read without spans)."""
        return self._split_texts(_WORD_SPLIT)

    @cached_property
    def name_words(self) -> tuple[str, ...]:
        """Words as names are written: "U.S.", "Jean-Paul" (the texts of `name_tokens`,
        read without spans, which readers of a long fact's names do not need)."""
        return self._split_texts(_NAME_SPLIT)

    def _split_texts(self, split: re.Pattern[str]) -> tuple[str, ...]:
        # A token's only non-alphanumeric characters are joiners, each between two
        # letters or digits: splitting at those not kept cuts it as `split_token` does.
        out: list[str] = []
        for token in self.token_texts:
            if token.isalnum():
                out.append(token)
            else:
                out.extend(split.split(token))
        return tuple(out)

    @cached_property
    def name_tokens(self) -> tuple[Token, ...]:
        return self.parts(NAME_JOINERS)

    @cached_property
    def letter_runs(self) -> tuple[Token, ...]:
        """The runs of letters, with their spans: each token cut at its digits and joiners
        ("COVID-19" holds "COVID", "3rd" holds "rd"), for readers of words written in
        letters only (number words, month names, the word after an abbreviation). A letter
        is a word character that is no decimal digit, so the runs are the matches of one
        pattern (`_LETTERS`), without walking each token's characters."""
        return tuple(Token(m.group(), *m.span()) for m in _LETTERS.finditer(self.text))

    @cached_property
    def lower_letters(self) -> frozenset[str]:
        """The distinct runs of letters of the lower-cased text, without spans: whether a
        text holds a word at all (a number word, a month), asked before its runs are read.
        A run lower-cased alone is one of these, or holds a letter outside ASCII."""
        return frozenset(_LETTERS.findall(self.text.lower()))

    def letters(self, start: int, end: int) -> list[str]:
        """The runs of letters of ``text[start:end]``, those crossing its bounds cut there:
        read from that stretch alone, as a reader of a few words before a number needs."""
        return _LETTERS.findall(self.text, start, end) if start < end else []

    def letters_at(self, position: int) -> str | None:
        """The run of letters from ``position`` on; None where no letter stands there."""
        match = _LETTERS.match(self.text, position)
        return match.group() if match else None

    @cached_property
    def stems(self) -> tuple[str, ...]:
        """English stems of the words, in order."""
        return tuple(stem(w) for w in self.words)

    @cached_property
    def content_stems(self) -> tuple[str, ...]:
        """Stems of the words that carry meaning (no stop words, negations or bare digits)."""
        # Stemmed here, not taken from `stems`: a passage only indexed never needs the
        # stop words' stems.
        return tuple(stem(w) for w in self.words if w.lower() not in _UNSTEMMED and not w.isdigit())


# Readings kept, counted in characters of text: the largest request reads 3.9 million
# (its 200 facts of 10,000 characters, and their passages again); a process checking it
# with every reading kept peaked at 775 MB.
_KEPT_CHARACTERS = 4_000_000
_kept: OrderedDict[str, Text] = OrderedDict()
_kept_characters = 0
_lock = threading.Lock()


def clear_text_caches() -> None:
    """Forget every reading: a profile of facts seen the first time
    (`grounding_lab/profile_bench.py --cold`)."""
    global _kept_characters
    with _lock:
        _kept.clear()
        _kept_characters = 0


def read(text: str) -> Text:
    """The text's reading, shared by every reader of the same text (a request's answer and
    facts are read by retrieval, each check, the judges and the unsupported-words step),
    the least recently read dropped first."""
    global _kept_characters
    with _lock:
        found = _kept.get(text)
        if found is not None:
            _kept.move_to_end(text)
            return found
        reading = Text(text)
        _kept[text] = reading
        _kept_characters += len(text)
        while _kept_characters > _KEPT_CHARACTERS and len(_kept) > 1:
            dropped, _ = _kept.popitem(last=False)
            _kept_characters -= len(dropped)
        return reading


_RUN = re.compile(r"\S+")

# Markup read around the words, whose names are runs of word characters too: an HTML or
# XML tag (a name, then attributes with values only, so that "a<b and c>d" is no tag;
# `normalise.strip_markup`), and a record's "key: value" or "key = value" line, its key
# opening with a letter (`retrieval.py`).
TAG = re.compile(r"</?[A-Za-z][\w-]*(?:\s+[\w:-]+=(?:\"[^\"<>]*\"|'[^'<>]*'|[^\s\"'<>]+))*\s*/?>")
KEY_VALUE_LINE = re.compile(
    r"[ \t]*(?P<key>[^\W\d_][\w .'/()&-]{0,60}?)(?:[ \t]*=[ \t]*|:[ \t]+)(?P<value>\S.*?)\s*"
)


def runs(text: str) -> list[tuple[int, int]]:
    """Character spans of the runs between spaces: a length in words that counts a
    tokenised text's detached commas too ("is true , and"), as passages are cut."""
    return [m.span() for m in _RUN.finditer(text)]


# Up to four capitalised words opening a sentence, after an optional "The".
_OPENING_NAME = re.compile(r"^(?:The\s+)?(?:[A-Z][\w'\u2019.&-]*\s+){0,3}[A-Z][\w'\u2019.&-]*")


def opening_name(sentence: str) -> str | None:
    """The name phrase a sentence opens with ("The Titanic Museum opened ..."), or None."""
    found = _OPENING_NAME.match(sentence)
    return found.group().strip() if found else None
