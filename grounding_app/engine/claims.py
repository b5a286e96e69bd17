# ruff: noqa: RUF001, RUF002
"""Split an answer into sentences (one sentence is one claim, SPEC §1).

Spans are UTF-8 byte offsets, end exclusive, like the hosted check-grounding API:
"Here is what I found. Titanic was directed by James Cameron." gives (0, 21), (22, 60).
The spans tile the answer: everything outside them is whitespace, so clients can
re-assemble the answer from them.

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

Markdown (`split_claims`, what the engine checks; `split_sentences` alone is for facts):

* A GFM table's data row is one claim whatever its cells hold, read by the judge as
  "header: cell; header: cell"; its header row and its rule row are one piece each, and
  a code block (fenced, from fence to fence, or indented) one piece: no claims.
* A list item or table row is read with the sentence before its list or table when that
  ends in a colon ("The cast includes:"), as context.

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
from bisect import bisect_right
from dataclasses import dataclass, replace
from functools import lru_cache

from markdown_it import MarkdownIt
from markdown_it.token import Token

from grounding_app.engine.lang.en import (
    FACTIVE_QUESTION,
    FILLER_PATTERNS,
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
from grounding_app.engine.normalise import CITATION_RUN
from grounding_app.engine.offsets import require_utf8
from grounding_app.engine.types import CODE, TABLE_HEADER, TABLE_RULE

__all__ = [
    "NEVER_SPLIT",
    "NUMERIC_ABBREVIATIONS",
    "SENTENCE_STARTERS",
    "TERMINAL_ABBREVIATIONS",
    "Sentence",
    "asserted_statement",
    "needs_grounding_check",
    "split_claims",
    "split_sentences",
    "strip_list_marker",
]


@dataclass(frozen=True)
class Sentence:
    """One claim: UTF-8 byte span into the answer (end exclusive) and its exact text.

    From `split_claims` also what the judge reads where the text is Markdown structure
    (`reading`: a table row as "header: cell; header: cell"), why a piece is no claim
    (`no_check_reason`, `types.NO_CHECK_REASONS`), and the sentence that introduces the
    list or table it stands in (`lead_in`, read with it as context).
    """

    start: int
    end: int
    text: str
    reading: str | None = None
    no_check_reason: str | None = None
    lead_in: str = ""


# --- patterns --------------------------------------------------------------------------

_LINE_BREAK = re.compile("[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]")

_CLOSERS = "\"'”’»›)\\]}」』】〕〉》）｣*_`"
_WESTERN_TERMINATORS = ".!?…‼⁇⁈⁉؟।॥።"
_CJK_TERMINATORS = "。！？｡"
_EXCLAMATIONS = frozenset("!‼")
# The leading lookahead lets the regex engine skip non-terminators fast (2-3x on 100 KB).
# Citation markers after a terminator ("people.[3] The", "。【1】") end the sentence with it.
_TERMINATOR = re.compile(
    rf"(?=[{_WESTERN_TERMINATORS}{_CJK_TERMINATORS}])"
    rf"(?:(?P<western>[{_WESTERN_TERMINATORS}]+)(?P<wclose>[{_CLOSERS}]*)"
    rf"(?:[ \t]*(?P<wcite>{CITATION_RUN}))?(?=\s|\Z)"
    rf"|(?P<cjk>[{_CJK_TERMINATORS}]+)(?P<cclose>[{_CLOSERS}]*)(?P<ccite>{CITATION_RUN})?)"
)
_CJK_OPENERS = frozenset("「『【〔〈《（｢\"“'‘")
_CONTINUING = frozenset(",;:%)]}")
_OPENING_PUNCT = "\"'“‘«‹([{¿¡*_`"
_DOTTED_ACRONYM = re.compile(r"(?:[^\W\d_]\.){2,}")
_WORD = re.compile(r"[^\W\d_]+")

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
        word = _WORD.match(text, next_pos)
        if word is None:
            return False
        return word.group() in SENTENCE_STARTERS and not (initial and len(word.group()) == 1)
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


def _char_spans(text: str) -> list[tuple[int, int]]:
    """Sentence spans as char indices, whitespace stripped, empty pieces dropped."""
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
    return spans


def _in_bytes(text: str, pieces: list[Sentence]) -> list[Sentence]:
    """Pieces with char spans, in order, as the same pieces with UTF-8 byte spans."""
    if text.isascii():
        return pieces
    out: list[Sentence] = []
    char_pos = 0
    byte_pos = 0
    for piece in pieces:
        byte_pos += len(text[char_pos : piece.start].encode("utf-8"))
        byte_end = byte_pos + len(piece.text.encode("utf-8"))
        out.append(replace(piece, start=byte_pos, end=byte_end))
        char_pos, byte_pos = piece.end, byte_end
    return out


def split_sentences(text: str) -> list[Sentence]:
    """Split ``text`` into sentences with UTF-8 byte spans that tile it (see module doc).

    Raises ``OffsetError`` for text with lone surrogates, which has no byte offsets.
    """
    require_utf8(text)
    return _in_bytes(text, [Sentence(s, e, text[s:e]) for s, e in _char_spans(text)])


# --- Markdown structure ---------------------------------------------------------------

_MARKDOWN_LINE_END = re.compile(r"\r\n?|\n")
# What a text needs before it is worth parsing (markdown-it reads 20 KB in about 50 ms):
# a line with a pipe and a line after it (a table's header), a fence, an indented line
# (code), or a line that ends in a colon (a lead-in).
_MAY_HOLD_BLOCKS = re.compile(
    r"\|[^\r\n]*[\r\n]|```|~~~|(?:\A|[\r\n])(?: {4}|\t)|[:：][*_ \t]*[\r\n]"
)
_LEAD_IN_ENDS = (":", "：")


@lru_cache(maxsize=1)
def _markdown() -> MarkdownIt:
    """Blocks as the answer's renderer reads them: CommonMark, raw HTML off, GFM tables.

    Inline content is left unparsed (a third of the time); only table cells are read.
    """
    return MarkdownIt("commonmark", {"html": False}).enable(["table"]).disable(["inline"])


@lru_cache(maxsize=1)
def _inline() -> MarkdownIt:
    return MarkdownIt("commonmark", {"html": False})


def _cell_text(inline: Token) -> str:
    """A cell as it reads once rendered: no emphasis marks, link URLs or backticks."""
    out = []
    (parsed,) = _inline().parseInline(inline.content)
    for child in parsed.children or ():
        if child.type in ("text", "code_inline"):
            out.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            out.append(" ")
        elif child.type == "image":
            out.extend(c.content for c in child.children or ())
    return "".join(out).strip()


def _row_reading(headers: list[str], cells: list[str]) -> str:
    """A data row as the judge reads it: "header: cell; header: cell", empty cells out."""
    return "; ".join(
        f"{header}: {cell}" if header else cell
        for header, cell in zip(headers, cells, strict=False)
        if cell
    )


class _Lines:
    """Char spans of Markdown's lines (split at CR LF, CR or LF, as markdown-it does)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0]
        self.ends = []
        for match in _MARKDOWN_LINE_END.finditer(text):
            self.ends.append(match.start())
            self.starts.append(match.end())
        self.ends.append(len(text))

    def span(self, first: int, last: int) -> tuple[int, int]:
        """Lines first..last-1, whitespace stripped at both ends."""
        start, end = self.starts[first], self.ends[max(first, last - 1)]
        while start < end and self.text[start].isspace():
            start += 1
        while end > start and self.text[end - 1].isspace():
            end -= 1
        return start, end

    def piece(
        self, first: int, last: int, reading: str | None = None, reason: str | None = None
    ) -> Sentence | None:
        start, end = self.span(first, last)
        if start == end:
            return None
        return Sentence(start, end, self.text[start:end], reading, reason)


def _table_pieces(tokens: list[Token], at: int, lines: _Lines) -> list[Sentence]:
    """The rows of the table opened at ``tokens[at]``: header, rule, then data rows."""
    rows: list[tuple[int, list[str]]] = []
    for token in itertools.takewhile(lambda t: t.type != "table_close", tokens[at:]):
        if token.type == "tr_open" and token.map:
            rows.append((token.map[0], []))
        elif token.type == "inline" and rows:
            rows[-1][1].append(_cell_text(token))
    if not rows:
        return []
    (header_line, headers), body = rows[0], rows[1:]
    found = [
        lines.piece(header_line, header_line + 1, reason=TABLE_HEADER),
        lines.piece(header_line + 1, header_line + 2, reason=TABLE_RULE),
    ]
    found += [
        lines.piece(line, line + 1, reading=_row_reading(headers, cells)) for line, cells in body
    ]
    return [piece for piece in found if piece is not None]


def _is_lead_in(sentence: Sentence) -> bool:
    return sentence.no_check_reason is None and sentence.text.rstrip(_CLOSERS + " \t").endswith(
        _LEAD_IN_ENDS
    )


def split_claims(text: str) -> list[Sentence]:
    """The claims of an answer: its sentences, with Markdown read as answers write it.

    A GFM table's header and rule rows and each code block (fenced or indented) are one
    piece each that is no claim (`no_check_reason`); each data row is one claim, read as
    "header: cell; header: cell". A list item or table row is read with the sentence that
    introduces its list or table, when that ends in a colon ("The cast includes:"):
    without it "- Kate Winslet" says nothing to check. Blocks are found by markdown-it,
    with the rules the answer is rendered with, so what is shown as a table is read as one.
    Spans are UTF-8 byte offsets and still cover the answer in order.
    """
    require_utf8(text)
    sentences = [Sentence(s, e, text[s:e]) for s, e in _char_spans(text)]
    if _MAY_HOLD_BLOCKS.search(text) is None:
        return _in_bytes(text, sentences)
    lines = _Lines(text)
    tokens = _markdown().parse(text)
    blocks: list[Sentence] = []
    introduced: list[tuple[int, int]] = []  # char spans of lists and tables, outer first
    for at, token in enumerate(tokens):
        if not token.map:
            continue
        if token.type in ("fence", "code_block"):
            piece = lines.piece(token.map[0], token.map[1], reason=CODE)
            blocks.extend([piece] if piece else [])
        elif token.type == "table_open":
            blocks.extend(_table_pieces(tokens, at, lines))
        if token.type in ("table_open", "bullet_list_open", "ordered_list_open"):
            introduced.append(lines.span(*token.map))
    if blocks:
        covered = [(b.start, b.end) for b in blocks]
        starts = [start for start, _ in covered]

        def inside(sentence: Sentence) -> bool:
            i = bisect_right(starts, sentence.start) - 1
            return i >= 0 and sentence.start < covered[i][1]

        sentences = sorted([s for s in sentences if not inside(s)] + blocks, key=lambda s: s.start)
    ends = [s.end for s in sentences]
    for start, end in introduced:
        i = bisect_right(ends, start) - 1
        if i < 0 or not _is_lead_in(sentences[i]):
            continue
        lead_in = strip_list_marker(sentences[i].text)
        for j in range(i + 1, bisect_right(ends, end)):
            sentences[j] = replace(sentences[j], lead_in=lead_in)
    return _in_bytes(text, sentences)


def strip_list_marker(sentence_text: str) -> str:
    """The sentence without leading list markers, heading hashes or quote marks.

    Markers carry no meaning to judge, and "1." would read as a number to a matcher.
    """
    match = _LEADING_MARKERS.match(sentence_text)
    rest = sentence_text if match is None else sentence_text[match.end() :]
    return rest.strip()


# --- which sentences need checking -----------------------------------------------------

# Whole sentences that say nothing to check (greetings, thanks, meta lines, refusals).
_FILLER_PATTERNS = tuple(re.compile(pattern) for pattern in FILLER_PATTERNS)

_QUESTION_MARKS = frozenset("?？؟⁇⁈⁉‽")
_NOT_WORDISH = re.compile(r"[^\w':]+")
_SPACES = re.compile(r"\s+")
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
    tail = body.rstrip(_CLOSERS + ".!…。！ \t")
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


def needs_grounding_check(sentence_text: str) -> bool:
    """Whether a sentence asserts something the facts could support (SPEC §1).

    Questions, greetings, thanks, sign-offs, meta lines ("Here is what I found."),
    bare hedges or refusals and text without letters or digits are not checked and do
    not count in ``supportScore``, except a question that asserts a statement
    (`asserted_statement`), which is checked as that statement. Hedged content ("I
    think it was released in 1997.") is checked. Small regex set plus a content-word
    test, deliberately not a model.
    """
    body = strip_list_marker(sentence_text)
    if not any(char.isalnum() for char in body):
        return False
    tail = body.rstrip().rstrip(_CLOSERS + ".!…。！ \t")
    if tail and tail[-1] in _QUESTION_MARKS:
        statement = asserted_statement(body)
        return statement is not None and needs_grounding_check(statement)
    normal = _normalise(body)
    if not normal:
        return False
    if any(pattern.fullmatch(normal) for pattern in _FILLER_PATTERNS):
        return False
    words = _CONTENT_WORD.findall(normal.replace(":", " "))
    return any(word not in NON_CONTENT_WORDS for word in words)
