"""Facts -> passages -> candidate passages per claim.

Facts may be 200 x 10,000 characters; embedding every sentence of every fact would cost
seconds. Passages are sentences (long ones cut at word boundaries so the encoder never
truncates them silently); a BM25 prefilter picks a few candidates per claim, and only
those are embedded. Small requests skip the prefilter and embed everything.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import bm25s
import numpy as np

from grounding_app.engine.claims import split_sentences
from grounding_app.engine.lexical import content_stems
from grounding_app.engine.offsets import byte_prefix, char_index
from grounding_app.engine.types import Fact

# all-MiniLM-L6-v2 reads 256 word pieces; 60 words stay well inside that.
MAX_PASSAGE_WORDS = 60
# Below this many passages, embedding them all is cheaper than building an index.
DENSE_ONLY_LIMIT = 24

_WORD_SPAN = re.compile(r"\S+")
# Han (with its iteration marks), Hiragana, Katakana (not its middle dot) and Hangul.
_CJK_RUN = re.compile(
    "(["
    "\u3005-\u3007\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f"
    "\u3041-\u3096\u309d-\u309f"
    "\u30a1-\u30fa\u30fc-\u30ff\u31f0-\u31ff\uff66-\uff9f"
    "\u1100-\u11ff\u3131-\u318e\ua960-\ua97c\uac00-\ud7a3\ud7b0-\ud7fb"
    "]+)"
)


@dataclass(frozen=True)
class Passage:
    fact: int
    start: int  # character offsets into the fact text, end exclusive
    end: int
    text: str


def _cut_long(fact: int, text: str, start: int, end: int) -> list[Passage]:
    """Split one over-long sentence into word-bounded pieces (offsets kept exact)."""
    spans = [(m.start() + start, m.end() + start) for m in _WORD_SPAN.finditer(text[start:end])]
    pieces = []
    for i in range(0, len(spans), MAX_PASSAGE_WORDS):
        group = spans[i : i + MAX_PASSAGE_WORDS]
        a, b = group[0][0], group[-1][1]
        pieces.append(Passage(fact, a, b, text[a:b]))
    return pieces


def split_fact(index: int, text: str) -> list[Passage]:
    prefix = byte_prefix(text)
    passages: list[Passage] = []
    for sentence in split_sentences(text):
        start = char_index(text, sentence.start, prefix)
        end = char_index(text, sentence.end, prefix)
        if len(sentence.text.split()) > MAX_PASSAGE_WORDS:
            passages.extend(_cut_long(index, text, start, end))
        else:
            passages.append(Passage(index, start, end, sentence.text))
    return passages


def _bigrams(run: str) -> list[str]:
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def bm25_tokens(text: str) -> list[str]:
    """Content stems, with CJK runs cut into overlapping character bigrams.

    CJK writes no spaces, so a whole sentence would be one word and a paraphrase would
    share no token with its source; bigrams are the usual cure. Latin text gets exactly
    `content_stems`, which the lexical checks elsewhere also use.
    """
    tokens: list[str] = []
    # Split on a captured group: CJK runs sit at the odd positions.
    for i, part in enumerate(_CJK_RUN.split(text)):
        tokens.extend(_bigrams(part) if i % 2 else content_stems(part))
    return tokens


class PassageIndex:
    """All passages of a request's facts, with a lexical index when there are many."""

    def __init__(self, facts: Sequence[Fact]) -> None:
        self.passages: list[Passage] = [
            p for i, fact in enumerate(facts) for p in split_fact(i, fact.text)
        ]
        # Each fact's opening passage usually names what the fact is about ("Titanic is a
        # 1997 ... movie"); later passages say "The movie ...".
        self.lead: dict[int, int] = {}
        for i, passage in enumerate(self.passages):
            self.lead.setdefault(passage.fact, i)
        self._bm25: bm25s.BM25 | None = None
        if len(self.passages) > DENSE_ONLY_LIMIT:
            tokens = [bm25_tokens(p.text) or ["\x00empty"] for p in self.passages]
            self._bm25 = bm25s.BM25()
            self._bm25.index(tokens, show_progress=False)

    def candidates(self, queries: Sequence[str], k: int) -> list[list[int]]:
        """Up to k passage indices per query, best lexical match first."""
        n = len(self.passages)
        if self._bm25 is None:
            return [list(range(n)) for _ in queries]
        token_lists = [bm25_tokens(q) for q in queries]
        result: list[list[int]] = [[] for _ in queries]
        asked = [i for i, tokens in enumerate(token_lists) if tokens]
        if not asked:
            return result
        vocab = self._bm25.vocab_dict
        known = [[t for t in token_lists[i] if t in vocab] for i in asked]
        rows = [(i, toks) for i, toks in zip(asked, known, strict=True) if toks]
        if not rows:
            return result
        docs, scores = self._bm25.retrieve(
            [toks for _, toks in rows], k=min(k, n), show_progress=False, n_threads=1
        )
        for (query_index, _), doc_row, score_row in zip(rows, docs, scores, strict=True):
            result[query_index] = [int(d) for d, s in zip(doc_row, score_row, strict=True) if s > 0]
        return result


def cosine(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Rows are already L2-normalised."""
    return a @ b.T
