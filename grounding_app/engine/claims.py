# ruff: noqa: RUF001
"""An answer's claims: its sentences with UTF-8 byte spans (one sentence is one claim, SPEC §1).

Spans are UTF-8 byte offsets, end exclusive, like the hosted check-grounding API:
"Here is what I found. Titanic was directed by James Cameron." gives (0, 21), (22, 60).
The spans tile the answer: everything outside them is whitespace, so clients can
re-assemble the answer from them. Where sentences end, and which of them assert
something, is read by the language profile (`lang/sentences.py`, whose doc gives the
rules); this module turns its character spans into byte spans.

Markdown (`split_claims`, what the engine checks; `split_sentences` alone is for facts):

* A GFM table's data row is one claim whatever its cells hold, read by the judge as
  "header: cell; header: cell"; its header row and its rule row are one piece each, a
  code block (fenced, from fence to fence, or indented) one piece, and a heading (ATX
  "## Title" or setext, its underline included) one piece: no claims.
* The sentence before a list, table or code block that ends in a colon ("The cast
  includes:") only introduces it: it is no claim (`lead_in`, or what its words are when
  they say more: an instruction, a greeting), and a list item or table row is read
  with it, as context.
"""

from __future__ import annotations

import itertools
import re
from bisect import bisect_right
from dataclasses import dataclass, replace
from functools import lru_cache

from markdown_it import MarkdownIt
from markdown_it.token import Token

from grounding_app.engine.lang.sentences import (
    CLOSERS,
    NEVER_SPLIT,
    NUMERIC_ABBREVIATIONS,
    SENTENCE_STARTERS,
    TERMINAL_ABBREVIATIONS,
    asserted_statement,
    needs_grounding_check,
    sentence_spans,
    strip_list_marker,
    unchecked_reason,
)
from grounding_app.engine.offsets import require_utf8
from grounding_app.engine.types import (
    CODE,
    HEADING,
    LAYOUT_REASONS,
    LEAD_IN,
    NO_CLAIM,
    TABLE_HEADER,
    TABLE_RULE,
)

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
    "unchecked_reason",
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
    return _in_bytes(text, [Sentence(s, e, text[s:e]) for s, e in sentence_spans(text)])


# --- Markdown structure ---------------------------------------------------------------

_MARKDOWN_LINE_END = re.compile(r"\r\n?|\n")
# What a text needs before it is worth parsing (markdown-it reads 20 KB in about 50 ms):
# a line with a pipe and a line after it (a table's header), a fence, an indented line
# (code), a line that ends in a colon (a lead-in), a line that opens with hashes (a
# heading) or a line of "=" or of "-" under another (a setext heading's underline).
_MAY_HOLD_BLOCKS = re.compile(
    r"\|[^\r\n]*[\r\n]|```|~~~|(?:\A|[\r\n])(?: {4}|\t)|[:：][*_ \t]*[\r\n]"
    r"|(?:\A|[\r\n]) {0,3}#{1,6}(?=[ \t\r\n]|\Z)|[\r\n] {0,3}(?:=+|-+)[ \t]*(?:[\r\n]|\Z)"
)
# One of these is in every match of the pattern; looking for them costs 0.05 ms on 20 KB
# of prose, where the pattern costs 4 ms. (A setext underline of one "-" after up to three
# spaces is the one heading they miss.)
_BLOCK_MARKS = ("|", "```", "~~~", "\t", "    ", ":", "：", "#", "=", "--", "\n-", "\r-")
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


def _label(header: str) -> str:
    """A column header as a label: its capitalised words in lower case ("Box Office" ->
    "box office"), acronyms and names in capitals kept ("GDP", "USA"). Read capitalised,
    "Film: Titanic; Year: 1997" made the verifier look for names called "Film" and
    "Year" in the evidence and scored a true row 0.02; "film: Titanic; year: 1997" 0.75."""
    return " ".join(
        word.lower() if word[:1].isupper() and word[1:].islower() else word
        for word in header.split()
    )


def _row_reading(headers: list[str], cells: list[str]) -> str:
    """A data row as the judge reads it: "header: cell; header: cell", empty cells out."""
    return "; ".join(
        f"{_label(header)}: {cell}" if header else cell
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
    return sentence.no_check_reason not in LAYOUT_REASONS and sentence.text.rstrip(
        CLOSERS + " \t"
    ).endswith(_LEAD_IN_ENDS)


def split_claims(text: str) -> list[Sentence]:
    """The claims of an answer: its sentences, with Markdown read as answers write it.

    A GFM table's header and rule rows, each code block (fenced or indented) and each
    heading are one piece each that is no claim (`no_check_reason`); each data row is one
    claim, read as "header: cell; header: cell". The sentence that introduces a list,
    table or code block, ending in a colon ("The cast includes:"), is no claim either
    (`lead_in`, or its `unchecked_reason` where its words say more: "Click Run:" is an
    instruction); a list item or table row is read with it: without it "- Kate Winslet"
    says nothing to check. Blocks are found by markdown-it,
    with the rules the answer is rendered with, so what is shown as a table is read as one.
    Spans are UTF-8 byte offsets and still cover the answer in order.
    """
    require_utf8(text)
    sentences = [Sentence(s, e, text[s:e]) for s, e in sentence_spans(text)]
    if not any(mark in text for mark in _BLOCK_MARKS) or not _MAY_HOLD_BLOCKS.search(text):
        return _in_bytes(text, sentences)
    lines = _Lines(text)
    tokens = _markdown().parse(text)
    blocks: list[Sentence] = []
    # Char spans of lists, tables and code, outer first, and whether their items are read
    # with the lead-in (code is not read).
    introduced: list[tuple[int, int, bool]] = []
    for at, token in enumerate(tokens):
        if not token.map:
            continue
        if token.type in ("fence", "code_block", "heading_open"):
            reason = HEADING if token.type == "heading_open" else CODE
            piece = lines.piece(token.map[0], token.map[1], reason=reason)
            blocks.extend([piece] if piece else [])
        elif token.type == "table_open":
            blocks.extend(_table_pieces(tokens, at, lines))
        if token.type in ("table_open", "bullet_list_open", "ordered_list_open"):
            introduced.append((*lines.span(*token.map), True))
        elif token.type in ("fence", "code_block"):
            introduced.append((*lines.span(*token.map), False))
    if blocks:
        covered = [(b.start, b.end) for b in blocks]
        starts = [start for start, _ in covered]

        def inside(sentence: Sentence) -> bool:
            i = bisect_right(starts, sentence.start) - 1
            return i >= 0 and sentence.start < covered[i][1]

        sentences = sorted([s for s in sentences if not inside(s)] + blocks, key=lambda s: s.start)
    ends = [s.end for s in sentences]
    for start, end, read_with in introduced:
        i = bisect_right(ends, start) - 1
        if i < 0 or not _is_lead_in(sentences[i]):
            continue
        if sentences[i].no_check_reason is None:
            said = unchecked_reason(sentences[i].text)
            sentences[i] = replace(
                sentences[i], no_check_reason=LEAD_IN if said in (None, NO_CLAIM) else said
            )
        lead_in = strip_list_marker(sentences[i].text)
        for j in range(i + 1, bisect_right(ends, end) if read_with else i + 1):
            sentences[j] = replace(sentences[j], lead_in=lead_in)
    return _in_bytes(text, sentences)
