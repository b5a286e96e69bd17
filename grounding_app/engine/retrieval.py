"""Facts -> passages -> candidate passages per claim.

Facts may be 200 x 10,000 characters; embedding every sentence of every fact would cost
seconds. Passages are sentences (long ones cut at word boundaries so the encoder never
truncates them silently); a BM25 prefilter picks a few candidates per claim, and only
those are embedded. Small requests skip the prefilter and embed everything.

Structured facts (a JSON object or array, or ``key: value`` lines, as RAG over records
sends them) are first read as statements, one per leaf: ``{"attributes":
{"RestaurantsReservations": true}}`` becomes "attributes, restaurants reservations: yes."
A judge trained on prose reads such statements, but not braces, quotes and ``true``; the
words-based checks (`checks/record_flag.py`) read a yes or no by its key's words.
A transcript's "speaker: turn" lines and an abstract's "BACKGROUND: ..." sections only
look like records: they are read as prose.
"""

from __future__ import annotations

import ast
import json
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass

import bm25s
import numpy as np

from grounding_app.engine.lang import CJK_RUN, bigrams, extra_forms
from grounding_app.engine.lang.sentences import sentence_spans
from grounding_app.engine.lang.text import KEY_VALUE_LINE, read, runs
from grounding_app.engine.lexical import content_stems, numbers
from grounding_app.engine.types import Fact

# bm25s raises its own logger to DEBUG on import and reports every index it builds: one
# line per request in a server's log.
logging.getLogger("bm25s").setLevel(logging.WARNING)

# all-MiniLM-L6-v2 reads 256 word pieces; 60 words stay well inside that.
MAX_PASSAGE_WORDS = 60
# Below this many passages, embedding them all is cheaper than building an index.
DENSE_ONLY_LIMIT = 24
# How far past its k best a query's ties with the k-th passage are followed (k x this).
TIE_WIDENING = 4


@dataclass(frozen=True)
class Passage:
    """A piece of a fact: what is judged, retrieved and cited.

    ``text`` is the fact's own text between ``start`` and ``end``, except for structured
    facts: there it is the statement read from that span, and cited chunks carry the
    statement, since that is what the judge found support in and what a reader can read.
    """

    fact: int
    start: int  # character offsets into the fact text, end exclusive
    end: int
    text: str
    key: str = ""  # a structured fact's statement: the key of its value, as written


def _cut_long(fact: int, text: str, start: int, end: int) -> list[Passage]:
    """Split one over-long sentence into word-bounded pieces (offsets kept exact)."""
    spans = [(a + start, b + start) for a, b in runs(text[start:end])]
    pieces = []
    for i in range(0, len(spans), MAX_PASSAGE_WORDS):
        group = spans[i : i + MAX_PASSAGE_WORDS]
        a, b = group[0][0], group[-1][1]
        pieces.append(Passage(fact, a, b, text[a:b]))
    return pieces


def _sentences(index: int, text: str) -> list[Passage]:
    """``text`` cut into sentences, over-long ones into word-bounded pieces."""
    passages: list[Passage] = []
    for start, end in sentence_spans(text):
        sentence = text[start:end]
        if len(sentence.split()) > MAX_PASSAGE_WORDS:
            passages.extend(_cut_long(index, text, start, end))
        else:
            passages.append(Passage(index, start, end, sentence))
    return passages


def split_fact(index: int, text: str) -> list[Passage]:
    """The fact's passages in order: its sentences, or the statements of a structured fact."""
    return _fact_passages(index, text)[0]


def _fact_passages(index: int, text: str) -> tuple[list[Passage], bool]:
    """The fact's passages, and whether they are statements of a structured fact."""
    statements = linearise(text)
    if statements is None:
        return _sentences(index, text), False
    passages: list[Passage] = []
    for statement in statements:
        for piece in _sentences(index, statement.text):
            # A long string value splits into several passages: each keeps its own span.
            start = statement.origin(piece.start)
            end = max(statement.origin(piece.end), start + 1)
            passages.append(Passage(index, start, end, piece.text, statement.key))
    return passages, True


# --- structured facts ------------------------------------------------------------------


@dataclass(frozen=True)
class Statement:
    """A readable line made from one value of a structured fact.

    ``offsets[i]`` is where the ``i``-th character of ``text`` came from in the fact
    (``len(text) + 1`` entries, never decreasing); the key's characters map to where the
    value starts. Passages cut from a statement get their spans from it.
    """

    text: str
    offsets: tuple[int, ...]
    key: str = ""  # the value's own key, as written ("business_id"); "" in a bare list

    def origin(self, position: int) -> int:
        return self.offsets[position]


@dataclass(frozen=True)
class _Value:
    """A scalar read from a structured fact, as words, with its characters' sources."""

    path: tuple[str, ...]
    words: str
    offsets: tuple[int, ...]  # len(words) + 1 entries


_DECODER = json.JSONDecoder()
_JSON_SPACE = re.compile(r"[ \t\n\r]*")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z][a-z]{2})|(?<=[A-Z])(?=[A-Z][a-z]{2})")
_KEY_SEPARATORS = re.compile(r"[_\s-]+")
_TERMINAL = (".", "!", "?", "\u3002", "\uff01", "\uff1f")  # and the CJK full stops
# Deeper nesting is no record a reader would state line by line (and recursion is bounded).
_MAX_DEPTH = 32
# A string value that opens like a Python literal (Yelp writes "u'free'" and
# "{'garage': False, 'street': True}" inside its JSON) is read as one, up to this length.
_LITERAL_OPENERS = ("u'", "'", "{", "[")
_MAX_LITERAL = 2000


def key_words(key: str) -> str:
    """'RestaurantsReservations' -> 'Restaurants Reservations', 'price_range' -> 'price range'.

    "WiFi" and "userID" stay whole: a word starts at a capital followed by two small letters.
    """
    return _KEY_SEPARATORS.sub(" ", _CAMEL.sub(" ", key)).strip()


def _key_phrase(key: str) -> str:
    """A key as words of a statement: 'OutdoorSeating' -> 'outdoor seating'.

    Capitalised words are lowered, as prose writes them; "WiFi", "HasTV" and "ID" keep
    theirs, since lowering them makes no word a reader knows.
    """
    return " ".join(
        w.lower() if w[:1].isupper() and w[1:].islower() else w for w in key_words(key).split()
    )


def _words(value: object) -> str | None:
    """How a scalar reads: booleans (also "True"/"false" strings) as yes/no; null as None."""
    if value is None:
        return None
    if isinstance(value, str) and value.strip().casefold() in ("true", "false"):
        value = value.strip().casefold() == "true"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value).strip() or None


def _skip_space(text: str, position: int) -> int:
    match = _JSON_SPACE.match(text, position)
    return position if match is None else match.end()


def _string_offsets(raw: str, value: str, start: int) -> list[int]:
    """Where each character of a decoded JSON string sits in its quoted source ``raw``."""
    offsets: list[int] = []
    position = 1  # after the opening quote
    for char in value:
        offsets.append(start + position)
        if raw[position] != "\\":
            position += 1
        elif raw[position + 1] != "u":
            position += 2
        else:
            position += 12 if ord(char) > 0xFFFF else 6
    offsets.append(start + position)
    return offsets


def _scalar(text: str, start: int, path: tuple[str, ...]) -> tuple[list[_Value], int]:
    value, end = _DECODER.raw_decode(text, start)
    if isinstance(value, str):
        exact = _string_offsets(text[start:end], value, start)
        literal = _python_literal(value, exact, path)
        if literal is not None:
            return literal, end
    words = _words(value)
    if words is None:
        return [], end
    if isinstance(value, str) and words == value.strip():
        lead = len(value) - len(value.lstrip())
        return [_Value(path, words, tuple(exact[lead : lead + len(words) + 1]))], end
    return [_Value(path, words, (start,) * len(words) + (end,))], end


def _python_literal(
    source: str, offsets: Sequence[int], path: tuple[str, ...]
) -> list[_Value] | None:
    """The leaves of a string value written as a Python literal, or None for any other
    string. ``offsets[i]`` is where the ``i``-th character of ``source`` sits in the fact."""
    stripped = source.strip()
    if not stripped.startswith(_LITERAL_OPENERS) or len(source) > _MAX_LITERAL:
        return None
    try:
        tree = ast.parse(stripped, mode="eval")
        lead = source.index(stripped)
        return _literal_values(tree.body, stripped, offsets[lead:], path)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _char_index(source: str, line: int, column: int) -> int:
    """The character index of ``ast``'s (line, UTF-8 byte column) in ``source``."""
    lines = source.splitlines(keepends=True)
    before = sum(len(text) for text in lines[: line - 1])
    return before + len(lines[line - 1].encode()[:column].decode(errors="ignore"))


def _literal_values(
    node: ast.expr, source: str, offsets: Sequence[int], path: tuple[str, ...]
) -> list[_Value]:
    """Like `_json_values`, for a Python literal's syntax tree; ValueError for anything
    that is no literal (a name, a call)."""
    if isinstance(node, ast.Dict):
        values: list[_Value] = []
        for key, item in zip(node.keys, node.values, strict=True):
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                raise ValueError("a literal's key is no string")
            values.extend(_literal_values(item, source, offsets, (*path, key.value)))
        return values
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        items = [_literal_values(item, source, offsets, path) for item in node.elts]
        plain = [v for values in items for v in values]
        scalars = all(isinstance(item, ast.Constant) for item in node.elts)
        return [_joined(path, plain)] if plain and scalars else plain
    if not isinstance(node, ast.Constant) or node.end_lineno is None:
        raise ValueError("no literal")
    words = _words(node.value)
    if words is None:
        return []
    start = _char_index(source, node.lineno, node.col_offset)
    end = _char_index(source, node.end_lineno, node.end_col_offset or 0)
    written = source[start:end]
    # A string written without escapes ("u'free'"): its words point at its own characters.
    if (
        words == node.value
        and len(written) > len(words) + 1
        and written[-len(words) - 1 : -1] == words
    ):
        first = end - len(words) - 1
        return [_Value(path, words, tuple(offsets[first : first + len(words) + 1]))]
    return [_Value(path, words, (offsets[start],) * len(words) + (offsets[end],))]


def _joined(path: tuple[str, ...], values: Sequence[_Value]) -> _Value:
    """A list of plain values as one value: "pizza, pasta"; sentences joined by spaces."""
    sentences = any(v.words.endswith(_TERMINAL) for v in values)
    glue = " " if sentences else ", "
    words = glue.join(v.words for v in values)
    offsets: list[int] = []
    for i, v in enumerate(values):
        offsets.extend(v.offsets[:-1])
        if i + 1 < len(values):
            offsets.extend([values[i + 1].offsets[0]] * len(glue))
    offsets.append(values[-1].offsets[-1])
    return _Value(path, words, tuple(offsets))


def _json_values(
    text: str, start: int, path: tuple[str, ...], depth: int
) -> tuple[list[_Value], int, bool]:
    """The scalars at ``start`` and below, where that JSON value ends, and whether it is a
    scalar. Raises ValueError where the text is not JSON."""
    if depth > _MAX_DEPTH:
        raise ValueError("nested too deep")
    opener = text[start : start + 1]
    if opener not in ("{", "["):
        values, end = _scalar(text, start, path)
        return values, end, True
    closer = "}" if opener == "{" else "]"
    items: list[tuple[list[_Value], bool]] = []
    position = _skip_space(text, start + 1)
    while not text.startswith(closer, position):
        if items:
            if not text.startswith(",", position):
                raise ValueError(f"expected ',' or {closer!r} at {position}")
            position = _skip_space(text, position + 1)
        item_path = path
        if opener == "{":
            key, position = _DECODER.raw_decode(text, position)
            position = _skip_space(text, position)
            if not isinstance(key, str) or not text.startswith(":", position):
                raise ValueError(f"expected a key and ':' at {position}")
            item_path = (*path, key)
            position = _skip_space(text, position + 1)
        values, position, scalar = _json_values(text, position, item_path, depth + 1)
        items.append((values, scalar))
        position = _skip_space(text, position)
    end = position + 1
    plain = [v for values, _ in items for v in values]
    if opener == "[" and plain and all(scalar for _, scalar in items):
        return [_joined(path, plain)], end, False
    return plain, end, False


def _statement(value: _Value) -> Statement:
    """'path words: value.' with every character mapped to its source."""
    head = ", ".join(filter(None, (_key_phrase(key) for key in value.path)))
    prefix = f"{head}: " if head else ""
    tail = "" if value.words.endswith(_TERMINAL) else "."
    offsets = (value.offsets[0],) * len(prefix) + value.offsets[:-1]
    offsets += (value.offsets[-1],) * (len(tail) + 1)
    return Statement(prefix + value.words + tail, offsets, value.path[-1] if value.path else "")


def _key_value_lines(text: str) -> list[_Value] | None:
    """``key: value`` or ``key = value`` on every non-blank line (two or more), else None."""
    values: list[_Value] = []
    line_start = 0
    for line in text.splitlines(keepends=True):
        match = KEY_VALUE_LINE.fullmatch(line.rstrip("\r\n"))
        if match is None:
            if line.strip():
                return None
        else:
            raw = match.group("value")
            start, end = line_start + match.start("value"), line_start + match.end("value")
            words = _words(raw) or raw
            if words == raw:
                offsets = tuple(range(start, end + 1))
            else:
                offsets = (start,) * len(words) + (end,)
            values.append(_Value((match.group("key").strip(),), words, offsets))
        line_start += len(line)
    if len(values) < 2 or _prose_lines(values):
        return None
    return values


# A record's value is a value ("free", "Luigi's", a line-up); past this many words (the
# median over its lines) the lines are paragraphs under headings: an abstract's sections.
RECORD_VALUE_WORDS = 20


def _prose_lines(values: Sequence[_Value]) -> bool:
    """Whether ``key: value`` lines are prose with labels, not a record: a conversation,
    where one speaker's name heads turns with another's between ("barry hughes: ...",
    "sian gwenllian am: ...", "barry hughes: ..."), or sections whose values run to
    paragraphs ("BACKGROUND: ..."). Read as a record, a transcript's turns were statements
    shown without the turns around them; read as prose, a turn is read with its
    neighbours, as the answer's summary of the meeting reads it."""
    if _is_conversation([v.path[0].casefold() for v in values]):
        return True
    lengths = sorted(len(runs(v.words)) for v in values)
    return lengths[(len(lengths) - 1) // 2] > RECORD_VALUE_WORDS


def _is_conversation(keys: Sequence[str]) -> bool:
    """Whether a speaker's name heads turns with another's between."""
    return any(k in keys[i + 2 :] and keys[i + 1] != k for i, k in enumerate(keys[:-2]))


def turns(text: str) -> tuple[tuple[str, str], ...]:
    """A transcript's turns, (speaker, what was said), speakers in lower case; () for a
    text that is no conversation. A line that names no speaker goes on the turn before."""
    return read(text).view("turns", _turns)


def _turns(text: str) -> tuple[tuple[str, str], ...]:
    found: list[tuple[str, str]] = []
    for line in text.splitlines():
        match = KEY_VALUE_LINE.fullmatch(line)
        if match is not None and ":" in line[match.end("key") : match.start("value")]:
            found.append((match.group("key").strip().casefold(), match.group("value")))
        elif line.strip() and found:
            speaker, said = found[-1]
            found[-1] = (speaker, f"{said} {line.strip()}")
    return tuple(found) if _is_conversation([k for k, _ in found]) else ()


def linearise(text: str) -> list[Statement] | None:
    """Statements of a structured fact; None for prose, which is read as it is.

    A JSON object or array gives one statement per scalar, its keys joined ("attributes
    WiFi: free."), booleans as yes/no, nulls left out and a list of plain values joined
    with commas; ``key: value`` lines give one statement per line, read the same way.
    """
    stripped = text.strip()
    if stripped[:1] in ("{", "[") and stripped[-1:] in ("}", "]"):
        start = text.index(stripped[0])
        try:
            values, end, _ = _json_values(text, start, (), 0)
        except ValueError:
            values, end = [], -1
        if end == start + len(stripped):
            return [_statement(v) for v in values]
    lines = _key_value_lines(text)
    return None if lines is None else [_statement(v) for v in lines]


_HEBREW_LETTER = re.compile("[\u05d0-\u05ea]")


def bm25_tokens(text: str) -> list[str]:
    """Content stems and numbers, with CJK runs cut into overlapping character bigrams.

    Numbers (years, counts, dates' days, in digits or words: "fourteen" and "14" are one
    token) are what tells near-identical facts apart ("Station 3 ... opened in 1903" among
    forty stations): without them every passage ties and the prefilter picks at random.
    CJK writes no spaces, so a whole sentence would be one word and a paraphrase would
    share no token with its source; bigrams are the usual cure. Hebrew words are also
    indexed without their prefixes (`lang.extra_forms`).
    """
    # A request's facts are indexed anew each time; their passages' tokens are kept with
    # the passage's reading (15,000 passages in the largest request: most of the index's
    # time).
    return list(read(text).view("bm25", _bm25_tokens))


def _bm25_tokens(text: str) -> tuple[str, ...]:
    tokens: list[str] = []
    # Split on a captured group: CJK runs sit at the odd positions.
    for i, part in enumerate(CJK_RUN.split(text)):
        tokens.extend(bigrams(part) if i % 2 else content_stems(part))
    tokens.extend(f"#{value}" for value in sorted(numbers(text)))
    if _HEBREW_LETTER.search(text):  # the only forms `extra_forms` adds
        tokens.extend(extra_forms(text))
    return tuple(tokens)


class PassageIndex:
    """All passages of a request's facts, with a lexical index when there are many."""

    def __init__(self, facts: Sequence[Fact]) -> None:
        self.passages: list[Passage] = []
        # Facts read as statements (structured facts): their passages are a few words each.
        self.structured: set[int] = set()
        for i, fact in enumerate(facts):
            passages, structured = _fact_passages(i, fact.text)
            self.passages.extend(passages)
            if structured:
                self.structured.add(i)
        # Each fact's opening passage usually names what the fact is about ("Titanic is a
        # 1997 ... movie"); later passages say "The movie ...".
        self.lead: dict[int, int] = {}
        self.size: dict[int, int] = {}  # each fact's number of passages, from its lead on
        for i, passage in enumerate(self.passages):
            self.lead.setdefault(passage.fact, i)
            self.size[passage.fact] = self.size.get(passage.fact, 0) + 1
        self._bm25: bm25s.BM25 | None = None
        if len(self.passages) > DENSE_ONLY_LIMIT:
            tokens = [bm25_tokens(p.text) or ["\x00empty"] for p in self.passages]
            self._bm25 = bm25s.BM25()
            self._bm25.index(tokens, show_progress=False)

    def candidates(self, queries: Sequence[str], k: int) -> list[list[int]]:
        """Up to k passage indices per query, best lexical match first.

        A query that shares no word with any passage (a paraphrase, another script) gets
        every fact's opening passage, for the encoder to rank: the judge then reads the
        best of them, and no claim is declared unsupported unread.
        """
        n = len(self.passages)
        if self._bm25 is None:
            return [list(range(n)) for _ in queries]
        vocab = self._bm25.vocab_dict
        known = [[t for t in bm25_tokens(q) if t in vocab] for q in queries]
        openings = self.openings
        result: list[list[int]] = [list(openings) for _ in queries]
        rows = [i for i, tokens in enumerate(known) if tokens]
        if not rows:
            return result
        docs, scores = self._bm25.retrieve(
            [known[i] for i in rows], k=min(k * TIE_WIDENING, n), show_progress=False, n_threads=1
        )
        for query_index, doc_row, score_row in zip(rows, docs, scores, strict=True):
            found = _best_with_ties(doc_row, score_row, k)
            if found:
                result[query_index] = found
        return result

    @property
    def openings(self) -> list[int]:
        """Each fact's first passage, in fact order."""
        return sorted(self.lead.values())


def _best_with_ties(docs: np.ndarray, scores: np.ndarray, k: int) -> list[int]:
    """The k best-scoring passages and those tied with the k-th, positive scores only.

    Near-identical facts tie on every word a claim shares with them; cutting a tie at k
    would pick among equals by position, and the encoder ranks them better.
    """
    positive = [(int(d), float(s)) for d, s in zip(docs, scores, strict=True) if s > 0]
    if len(positive) <= k:
        return [d for d, _ in positive]
    cutoff = positive[k - 1][1]
    return [d for i, (d, s) in enumerate(positive) if i < k or s >= cutoff - 1e-6]


def cosine(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Rows are already L2-normalised."""
    return a @ b.T
