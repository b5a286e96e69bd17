# ruff: noqa: RUF001, RUF002
"""The one sentence splitter, and which sentences assert something (SPEC §1).

Every text the engine reads is cut here: an answer into its claims (`claims` turns
the character spans into the byte spans of SPEC §1), a fact into its passages, a passage
into the sentences the checks compare. The spans tile the text: everything outside them
is whitespace. The splitter reads scripts, not words of one language, so it serves every
profile; English abbreviations are the one table it reads.

Rules, in order of strength:

* Line breaks always end a sentence; blank lines are gaps.
* A list marker ("- ", "* ", "• ", "+ ", "1. ", "2) ", "a) ", "(iv) ", "A. ") or heading
  hashes ("## ") at the start of a sentence stay inside it and never end it.
* CJK/fullwidth terminators (。！？｡) end a sentence even without a following space,
  unless a closing quote right after them is glued to more text
  (「行く。」と言った。 is one sentence).
* Other terminators (. ! ? … and runs like ?! or ..., plus closing quotes/brackets and
  markdown emphasis right after them) end a sentence when followed by whitespace and
  then a char that is not a lowercase letter and not , ; : % ) ] }.
  Scripts without letter case (Hebrew, Arabic, ...) therefore split after ". ".
* A bare "!" before a lower-case word ends the sentence unless a capitalised word
  carries it ("a great movie! do you ..." splits; "Yahoo! shares", '"help!" she
  cried' stay whole); a "?" before one does not.
* Text written in lower case: a lone "." before a lower-case word ends the sentence too
  when it follows a plain word or number of two characters or more that no abbreviation
  list knows ("she was shot in 2012. she survived." is two sentences; "e.g. apples",
  "et al. found", "U.S. army" stay whole; see ``LOWER_CASE_CONTINUES``).
* Citation markers right after a terminator ("people.[3] The", "people. [3][4] The",
  "。【1】") belong to the sentence they follow; "people [3]. The" splits after ".".
* Decimals, thousands separators, URLs, file names and e-mail addresses never split
  because their dots are not followed by whitespace ("3.5", "1.500", "example.com/a.b").
* A single "." after a known abbreviation is judged by its class, see below.

Documented choices for ambiguous periods (before a capitalised word), by the
abbreviation classes of `lang/en.py`:

* ``NEVER_SPLIT`` (titles, "e.g.", "i.e.", "vs.", ...): never a sentence end.
  "He met Gen. The ..." is therefore not split.
* ``NUMERIC_ABBREVIATIONS`` ("No.", "Fig.", "approx.", months, ...): no split before a
  digit ("Fig. 3", "Jan. 5"), a normal split otherwise ("The answer is no. The ...").
* ``TERMINAL_ABBREVIATIONS`` ("U.S.", "etc.", "Inc.", "Jr.", "St.", "a.m.", ...), any
  other dotted acronym of single letters ("R.M.S.") and single-letter initials ("J."):
  split only when the next word is a common sentence starter from
  ``SENTENCE_STARTERS`` ("the U.S. The next year" splits; "U.S. Army",
  "R.M.S. Titanic", "J. K. Rowling", "Apple Inc. Tim Cook" do not).
  After an initial, the one-letter starters "A" and "I" do not count ("J. A. Smith").
"""

from __future__ import annotations

import itertools
import re
from functools import cache

from grounding_app.engine.lang import PROFILES
from grounding_app.engine.lang.en import (
    FACTIVE_QUESTION,
    FINITE_VERB,
    LOWER_CASE_CONTINUES,
    NEVER_SPLIT,
    NON_CONTENT_WORDS,
    NOT_A_CLAUSE,
    NOT_A_TAGGED_CLAUSE,
    NUMERIC_ABBREVIATIONS,
    QUESTION_TAG,
    SENTENCE_STARTERS,
    TERMINAL_ABBREVIATIONS,
)
from grounding_app.engine.lang.text import read
from grounding_app.engine.types import (
    GREETING,
    INSTRUCTION,
    LEAD_IN,
    NO_CLAIM,
    POINTER,
    QUESTION,
    SIGN_OFF,
)

# Citation markers ("[1]", "[2, 3]", "【3†source】"): a run of them after a terminator
# belongs to the sentence it ends; `normalise` strips them before a text is judged.
_BRACKET_MARKER = r"\[\^?\d{1,3}(?:[ \t]*[,;–-][ \t]*\^?\d{1,3})*\]"
_LENTICULAR_MARKER = r"【\d{1,3}(?::\d{1,3})?(?:†[^【】\n]{0,40})?】"
# Not followed by "(" (a markdown link) or ":" (a reference definition).
_MARKER = rf"(?:{_BRACKET_MARKER}|{_LENTICULAR_MARKER})(?![(:])"
CITATION_RUN = rf"{_MARKER}(?:[ \t]*{_MARKER})*"

# --- patterns --------------------------------------------------------------------------

_LINE_BREAK = re.compile("[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]")

CLOSERS = "\"'”’»›)\\]}」』】〕〉》）｣*_`"
_WESTERN_TERMINATORS = ".!?…‼⁇⁈⁉؟।॥።"
_CJK_TERMINATORS = "。！？｡"
_EXCLAMATIONS = frozenset("!‼")
# The leading lookahead lets the regex engine skip non-terminators fast (2-3x on 100 KB).
# Citation markers after a terminator ("people.[3] The", "。【1】") end the sentence with it.
_TERMINATOR = re.compile(
    rf"(?=[{_WESTERN_TERMINATORS}{_CJK_TERMINATORS}])"
    rf"(?:(?P<western>[{_WESTERN_TERMINATORS}]+)(?P<wclose>[{CLOSERS}]*)"
    rf"(?:[ \t]*(?P<wcite>{CITATION_RUN}))?(?=\s|\Z)"
    rf"|(?P<cjk>[{_CJK_TERMINATORS}]+)(?P<cclose>[{CLOSERS}]*)(?P<ccite>{CITATION_RUN})?)"
)
_CJK_OPENERS = frozenset("「『【〔〈《（｢\"“'‘")
_CONTINUING = frozenset(",;:%)]}")
_OPENING_PUNCT = "\"'“‘«‹([{¿¡*_`"
_DOTTED_ACRONYM = re.compile(r"(?:[^\W\d_]\.){2,}")

_MARKER_BODY = (
    r"(?:#{1,6}|>"
    r"|[-*•+‣◦▪▫–—·]"
    r"|(?:\d{1,3}|[A-Za-z]|[ivxlc]{1,6}|[IVX]{1,5})[.)]"
    r"|\(\s*(?:\d{1,3}|[A-Za-z]|[ivxlc]{1,6}|[IVX]{1,5})\s*\))"
)
_LIST_MARKER = re.compile(rf"{_MARKER_BODY}\s+")
# Stripping skips "A." and "IV." so that names ("J. K. Rowling") survive for judging.
_STRIP_MARKER_BODY = (
    r"(?:#{1,6}|>"
    r"|[-*•+‣◦▪▫–—·]"
    r"|(?:\d{1,3}|[a-z]|[ivxlc]{1,6})\.|(?:\d{1,3}|[A-Za-z]|[ivxlc]{1,6}|[IVX]{1,5})\)"
    r"|\(\s*(?:\d{1,3}|[A-Za-z]|[ivxlc]{1,6}|[IVX]{1,5})\s*\))"
)
_LEADING_MARKERS = re.compile(rf"\s*(?:{_STRIP_MARKER_BODY}\s+){{1,3}}")

_TOKEN_LOOKBACK = 40


def _token_before(text: str, pos: int, floor: int) -> str:
    """The non-space run ending at ``pos`` (bounded, since abbreviations are short)."""
    start = pos
    limit = max(floor, pos - _TOKEN_LOOKBACK)
    while start > limit and not text[start - 1].isspace():
        start -= 1
    return text[start:pos].lstrip(_OPENING_PUNCT)


def _is_period_boundary(text: str, term_start: int, floor: int, next_pos: int) -> bool:
    """Decide whether a lone "." before a non-lowercase char ends the sentence."""
    token = _token_before(text, term_start, floor)
    key = token.casefold() + "."
    if key in NEVER_SPLIT:
        return False
    if key in NUMERIC_ABBREVIATIONS:
        return not text[next_pos].isdigit()
    initial = len(token) == 1 and token.isalpha() and token.upper() != token.lower()
    if initial or key in TERMINAL_ABBREVIATIONS or _DOTTED_ACRONYM.fullmatch(token + "."):
        word = read(text).letters_at(next_pos)
        if word is None:
            return False
        return word in SENTENCE_STARTERS and not (initial and len(word) == 1)
    return True


def _ends_lower_case_sentence(text: str, term_start: int, floor: int) -> bool:
    """Whether a lone "." before a lower-case word ends a sentence written in lower case.

    Summaries and chat replies are often all lower case ("she was shot in 2012. she
    survived."), and read as one claim their later sentences were cut off the judge's
    input. The "." ends the sentence when it follows a plain word or number of two
    characters or more that no abbreviation list knows ("e.g. apples", "5 p.m. and",
    "et al. found", "approx. five" and "U.S. army" stay whole).
    """
    token = _token_before(text, term_start, floor)
    key = token.casefold() + "."
    return (
        len(token) >= 2
        and token.isalnum()
        and key not in NEVER_SPLIT
        and key not in NUMERIC_ABBREVIATIONS
        and key not in TERMINAL_ABBREVIATIONS
        and key not in LOWER_CASE_CONTINUES
    )


def _ends_with_exclamation(match: re.Match[str], text: str, floor: int) -> bool:
    """Whether a bare "!" before a lower-case word ends a sentence.

    Chat replies are often written in lower case ("a great movie! do you like musicals?"),
    and read as one question their statement went unchecked. A closing quote keeps the
    sentence going ('"help!" she cried'), and so does a capitalised word before the
    mark, which is a name that carries one ("Yahoo! shares", "Jeopardy! host"). A "?"
    before a lower-case word does not split: what follows is read with the question
    ("what do they share? playwright.", "have you seen it? it was directed by ...").
    """
    if match.group("wclose") or match.group("wcite"):
        return False
    if not set(match.group("western")) <= _EXCLAMATIONS:
        return False
    token = _token_before(text, match.start(), floor)
    return not token[:1].isupper()


def _split_line(text: str, start: int, end: int, cuts: list[int]) -> None:
    """Append char positions where sentences end inside ``text[start:end]``."""
    protected = _marker_end(text, start, end)
    sentence_start = start
    for match in _TERMINATOR.finditer(text, start, end):
        cut = match.end()
        if match.start() < protected or cut >= end:
            continue
        next_pos = cut
        while next_pos < end and text[next_pos].isspace():
            next_pos += 1
        if next_pos >= end:
            continue
        if match.group("cjk") is not None:
            glued = cut == next_pos and match.group("cclose")
            if glued and text[next_pos] not in _CJK_OPENERS:
                continue
        else:
            following = text[next_pos]
            if following in _CONTINUING:
                continue
            lone_period = match.group("western") == "." and not (
                match.group("wclose") or match.group("wcite")
            )
            if following.islower():
                if lone_period:
                    if not _ends_lower_case_sentence(text, match.start(), sentence_start):
                        continue
                elif not _ends_with_exclamation(match, text, sentence_start):
                    continue
            elif lone_period and not _is_period_boundary(
                text, match.start(), sentence_start, next_pos
            ):
                continue
        cuts.append(cut)
        sentence_start = cut
        protected = _marker_end(text, next_pos, end)


def _marker_end(text: str, pos: int, end: int) -> int:
    """End of a list marker at ``pos`` (after leading whitespace), else ``pos``."""
    while pos < end and text[pos].isspace():
        pos += 1
    marker = _LIST_MARKER.match(text, pos, end)
    return pos if marker is None else marker.end()


def sentence_spans(text: str) -> tuple[tuple[int, int], ...]:
    """Sentence spans as char indices, whitespace stripped, empty pieces dropped; read
    once per text (each check that reads a passage's sentences asks again)."""
    return read(text).view("sentence spans", _sentence_spans)


def _sentence_spans(text: str) -> tuple[tuple[int, int], ...]:
    cuts: list[int] = [0]
    line_start = 0
    for brk in _LINE_BREAK.finditer(text):
        _split_line(text, line_start, brk.start(), cuts)
        cuts.append(brk.start())
        line_start = brk.end()
    _split_line(text, line_start, len(text), cuts)
    cuts.append(len(text))

    spans: list[tuple[int, int]] = []
    for piece_start, piece_end in itertools.pairwise(cuts):
        s, e = piece_start, piece_end
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if s < e:
            spans.append((s, e))
    return tuple(spans)


def sentences(text: str) -> list[str]:
    """The text's sentences, in order."""
    return [text[start:end] for start, end in sentence_spans(text)]


def strip_list_marker(sentence_text: str) -> str:
    """The sentence without leading list markers, heading hashes or quote marks.

    Markers carry no meaning to judge, and "1." would read as a number to a matcher.
    """
    match = _LEADING_MARKERS.match(sentence_text)
    rest = sentence_text if match is None else sentence_text[match.end() :]
    return rest.strip()


# --- which sentences need checking -----------------------------------------------------

_QUESTION_MARKS = frozenset("?？؟⁇⁈⁉‽")
_NOT_WORDISH = re.compile(r"[^\w':]+")
_SPACES = re.compile(r"\s+")
# A sentence's words as its no-claim reading has always cut them: an underscore inside a
# word ("it_is", Markdown's "_Sure_") and a second apostrophe part none. Read with the
# word pattern (`lang/text.py`), which parts words at both, "It_is." and "_Sure_!" would
# become sentences that assert nothing: kept until that change is chosen and measured.
_CONTENT_WORD = re.compile(r"\w+(?:'\w+)?")


def _normalise(sentence: str) -> str:
    text = sentence.casefold().replace("’", "'").replace("‘", "'")
    text = _NOT_WORDISH.sub(" ", text)
    return _SPACES.sub(" ", text).strip(" :'")


# A question that presupposes its clause asserts it: "Did you know that X?" (know,
# realise and hear are factive), "Were you aware that X?", and a statement with a
# question tagged on ("X, do you like them?", "X, right?"). Chatbots hide facts this
# way, true or not. Before the question may come a greeting of up to three words and a
# comma ("Hi, did you ...") or whole sentences the splitter kept with it ("yes, it is.
# did you know ..."), which stay part of the statement.
_FACTIVE = re.compile(FACTIVE_QUESTION, re.I | re.S)
_GREETING = re.compile(r"[\w']+(?:\s+[\w']+){0,2}\s*,\s*")
_ENDED = re.compile(r".*[.!…]\W*", re.S)
# The clause must read as a statement: "that" came before it, or it has a finite verb
# of its own ("did you know Mr. Jackson was ..."), and it does not open a question or
# an object (`NOT_A_CLAUSE`: "do you know what ...", "were you aware of ...").
_FINITE = re.compile(FINITE_VERB, re.I)
# A statement with a question tagged on: "X, do you like them?", "X, right?".
_TAG = re.compile(QUESTION_TAG, re.I | re.S)


def asserted_statement(sentence_text: str) -> str | None:
    """The statement a question asserts, or None for a question that asks only.

    "Did you know that the cables are 2.7 inches wide?" -> "the cables are 2.7 inches
    wide."; "Goldendoodles are designer dogs, do you like them?" -> "Goldendoodles are
    designer dogs."; "Do you know what it is rated?" -> None. A sentence that is not a
    question is returned as it is.
    """
    body = strip_list_marker(sentence_text).strip()
    tail = body.rstrip(CLOSERS + ".!…。！ \t")
    if not tail or tail[-1] not in _QUESTION_MARKS:
        return sentence_text
    question = tail.rstrip("".join(_QUESTION_MARKS) + " \t")
    for factive in _FACTIVE.finditer(question):
        before = question[: factive.start()]
        if before.strip() and not (_GREETING.fullmatch(before) or _ENDED.fullmatch(before)):
            continue
        clause = factive.group("clause").strip()
        first = _normalise(clause).split(" ", 1)[0]
        said_that = question[: factive.start("clause")].rstrip().lower().endswith("that")
        if first in NOT_A_CLAUSE or not (said_that or _FINITE.search(clause)):
            return None
        kept = before if _ENDED.fullmatch(before) else ""
        return f"{kept}{clause}."
    tagged = _TAG.fullmatch(question)
    if tagged is not None:
        clause = tagged.group("clause").strip()
        words = _normalise(clause).split()
        if len(words) >= 3 and words[0] not in NOT_A_TAGGED_CLAUSE:
            return f"{clause}."
    return None


# A web address as a sentence addressed to the reader names it: a Markdown link keeps
# its words, an address or a bare domain becomes "<link>" (`lang/en.py`, `_SOURCE`).
_WEB_ADDRESS = re.compile(
    r"\[([^\]]*)\]\([^)]*\)|<?https?://[^\s>]+>?|\bwww\.\S+"
    r"|\b(?:[\w-]+\.)+(?:com|org|net|gov|edu|io|int|eu|info|fr|uk|de|il|co)\b(?:/\S*)?"
)
_EMPHASIS = re.compile(r"[*`]+")


def _link(match: re.Match[str]) -> str:
    words = match.group(1)
    return "<link>" if words is None else f"{words} <link>"


def _addressed(body: str) -> str:
    """The sentence as the reader-addressed tables read it (`lang/en.py`, `_PLAIN`)."""
    text = _EMPHASIS.sub("", _WEB_ADDRESS.sub(_link, body))
    text = _SPACES.sub(" ", text.casefold().replace("’", "'").replace("‘", "'")).strip()
    return text.rstrip(CLOSERS + ".!…。！:： \t")


@cache
def _patterns(reason: str) -> tuple[re.Pattern[str], ...]:
    """Every profile's whole-sentence patterns for one reason: an answer's sentences are
    read whatever language they were identified as (each table names its own script)."""
    return tuple(
        re.compile(pattern) for p in PROFILES.values() for pattern in p.unchecked.get(reason, ())
    )


def _matches(reason: str, text: str) -> bool:
    return any(pattern.fullmatch(text) for pattern in _patterns(reason))


def unchecked_reason(sentence_text: str) -> str | None:
    """Why a sentence asserts nothing the facts could support (`types.NO_CHECK_REASONS`),
    or None for a sentence to check (SPEC §1).

    Greetings and openers ("Here is what I found."), sign-offs, reactions and bare hedges
    or refusals, questions, lines that only introduce what follows their colon ("To list
    them in Python:"), instructions and pointers addressed to the reader ("Click Save.",
    "See the official site."), and text without letters, digits or content words are not
    checked and do not count in ``supportScore``; the words are the profiles'
    (`Profile.unchecked`). A question that asserts a statement (`asserted_statement`) is
    judged as that statement. Hedged content ("I think it was released in 1997.") is
    checked. Small regex set plus a content-word test, deliberately not a model.
    """
    body = strip_list_marker(sentence_text)
    normal = _normalise(body)
    if not normal or not any(char.isalnum() for char in body):
        return NO_CLAIM
    for reason in (GREETING, SIGN_OFF, NO_CLAIM):
        if _matches(reason, normal):
            return reason
    tail = body.rstrip().rstrip(CLOSERS + ".!…。！ \t")
    if tail and tail[-1] in _QUESTION_MARKS:
        statement = asserted_statement(body)
        return QUESTION if statement is None else unchecked_reason(statement)
    if tail.endswith((":", "：")) and _matches(LEAD_IN, normal):
        return LEAD_IN
    addressed = _addressed(body)
    if not any(char.isdigit() for char in addressed):
        for reason in (POINTER, INSTRUCTION):
            if _matches(reason, addressed):
                return reason
    words = _CONTENT_WORD.findall(normal.replace(":", " "))
    return None if any(word not in NON_CONTENT_WORDS for word in words) else NO_CLAIM


def needs_grounding_check(sentence_text: str) -> bool:
    """Whether a sentence asserts something the facts could support: it has no
    `unchecked_reason`."""
    return unchecked_reason(sentence_text) is None
