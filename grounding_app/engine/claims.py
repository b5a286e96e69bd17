"""An answer's claims: its sentences with UTF-8 byte spans (one sentence is one claim, SPEC §1).

Spans are UTF-8 byte offsets, end exclusive, like the hosted check-grounding API:
"Here is what I found. Titanic was directed by James Cameron." gives (0, 21), (22, 60).
The spans tile the answer: everything outside them is whitespace, so clients can
re-assemble the answer from them. Where sentences end, and which of them assert
something, is read by the language profile (`lang/sentences.py`, whose doc gives the
rules); this module turns its character spans into byte spans.
"""

from __future__ import annotations

from dataclasses import dataclass

from grounding_app.engine.lang.sentences import (
    NEVER_SPLIT,
    NUMERIC_ABBREVIATIONS,
    SENTENCE_STARTERS,
    TERMINAL_ABBREVIATIONS,
    asserted_statement,
    needs_grounding_check,
    sentence_spans,
    strip_list_marker,
)
from grounding_app.engine.offsets import require_utf8

__all__ = [
    "NEVER_SPLIT",
    "NUMERIC_ABBREVIATIONS",
    "SENTENCE_STARTERS",
    "TERMINAL_ABBREVIATIONS",
    "Sentence",
    "asserted_statement",
    "needs_grounding_check",
    "split_sentences",
    "strip_list_marker",
]


@dataclass(frozen=True)
class Sentence:
    """One claim: UTF-8 byte span into the answer (end exclusive) and its exact text."""

    start: int
    end: int
    text: str


def split_sentences(text: str) -> list[Sentence]:
    """Split ``text`` into sentences with UTF-8 byte spans that tile it (see module doc).

    Raises ``OffsetError`` for text with lone surrogates, which has no byte offsets.
    """
    require_utf8(text)
    spans = sentence_spans(text)
    if text.isascii():
        return [Sentence(s, e, text[s:e]) for s, e in spans]
    sentences: list[Sentence] = []
    char_pos = 0
    byte_pos = 0
    for s, e in spans:
        byte_pos += len(text[char_pos:s].encode("utf-8"))
        piece = text[s:e]
        byte_end = byte_pos + len(piece.encode("utf-8"))
        sentences.append(Sentence(byte_pos, byte_end, piece))
        char_pos, byte_pos = e, byte_end
    return sentences
