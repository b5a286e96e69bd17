"""Which words of an unsupported claim its best evidence does not back.

A verdict says a claim is wrong; a reviewer then has to find *what* is wrong. For a
claim judged unsupported this finds the names, numbers, dates and other content words
that do not occur in the fact that shares most words with it (its best evidence), as
UTF-8 byte spans of the answer, adjacent words merged into one phrase.

Lexical absence over-marks (a paraphrase is absent too), so where a verifier is at
hand the phrases are refined: each is masked in turn and the claim re-scored against
the same evidence; phrases whose masking raises the score by `MIN_GAIN` or more are
the ones the verdict rests on, and only they are kept. If none does, the lexical
phrases stay: the evidence lacks them all the same. That costs one verifier call per
phrase, so it runs only while a budget of calls lasts (`refine_budget`); the API,
which must answer fast, uses the lexical pass alone.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from grounding_app.engine.lang import PROFILES, profile
from grounding_app.engine.lang.sentences import sentences as split
from grounding_app.engine.lang.text import read
from grounding_app.engine.lexical import named_otherwise, stem
from grounding_app.engine.normalise import dates_held

# One call scores many (claim, evidence) pairs: the probability each claim is supported.
Scorer = Callable[[Sequence[tuple[str, str]]], list[float]]

MIN_GAIN = 0.1
MAX_PHRASES = 8  # phrases refined per claim; more would be a sentence, not a pointer

_APOSTROPHE = "\u2019"
# Markdown the reader never sees as words: a link's destination and title ("[Paris](
# https://...)"), a reference definition's URL. Words in them are no claim's words, and
# phrases do not run across Markdown marks ("**", "`", "](", "|"), which would show them.
_LINK_TARGET = re.compile(
    r"\]\(\s*(?:<[^>\n]*>|[^\s)]*)(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^)]*\)))?\s*\)"
    r"|^\s*\[[^\]\n]+\]:\s*\S+",
    re.MULTILINE,
)
_MARKS = frozenset("*_`~[]()<>|#\\")


@dataclass(frozen=True)
class Word:
    start: int  # UTF-8 byte offset in the answer
    end: int
    text: str


def _fold(word: str) -> str:
    """Case, accents and thousands separators away, and the word stemmed, so that
    "movies"/"movie", "starred"/"stars" and "1,500"/"1500" meet."""
    if word.isascii():  # no accents to take off, and casefold is lower
        folded = word.lower()
    else:
        decomposed = unicodedata.normalize("NFKD", word.casefold().replace(_APOSTROPHE, "'"))
        folded = "".join(c for c in decomposed if not unicodedata.combining(c))
    if not folded.isalpha() and any(c.isdigit() for c in folded):
        return folded.replace(",", "")
    return stem(folded.removesuffix("'s"))


# Words never shown as unsupported, whatever the claim's language (English's list holds
# French, Spanish and German articles too).
_UNMARKED = profile("en").unmarked


def is_content(word: str) -> bool:
    """Names, numbers, dates and other words that carry the claim's meaning."""
    folded = word.casefold()
    return folded not in _UNMARKED and (len(folded) > 1 or folded.isdigit())


def words(text: str, offset: int = 0) -> list[Word]:
    """The words of `text` (whole tokens: "2,102,650", "U.S.", "example.com/a") with
    UTF-8 byte spans, `offset` bytes into the answer. No token holds an underscore, so
    Markdown emphasis ("_Titanic_") is never part of a word."""
    out = []
    at_char, at_byte = 0, offset
    for token in read(text).tokens:
        at_byte += len(text[at_char : token.start].encode("utf-8"))
        end = at_byte + len(token.text.encode("utf-8"))
        out.append(Word(at_byte, end, token.text))
        at_char, at_byte = token.end, end
    return out


def vocabulary(text: str) -> frozenset[str]:
    """The text's folded words, kept with its reading: a fact's vocabulary is read again
    for each request that brings it (200 facts of 10,000 characters: most of the
    unsupported-words step)."""
    return read(text).view("vocabulary", _vocabulary)


def _vocabulary(text: str) -> frozenset[str]:
    # Each distinct word folded once, without the byte spans `words` makes.
    return frozenset(map(_fold, set(read(text).token_texts)))


def best_evidence(claim: str, evidence: Sequence[frozenset[str]]) -> int | None:
    """Index of the evidence sharing most content words with the claim (first on ties)."""
    wanted = {_fold(w.text) for w in words(claim) if is_content(w.text)}
    best, best_shared = None, -1
    for i, vocab in enumerate(evidence):
        shared = len(wanted & vocab)
        if shared > best_shared:
            best, best_shared = i, shared
    return best


def _known(word: str, vocab: frozenset[str]) -> bool:
    if _fold(word) in vocab:
        return True
    return any(
        shed is not None and _fold(shed) in vocab
        for shed in (p.shed_one(word) for p in PROFILES.values())
    )


def matched_otherwise(claim: str, evidence: str) -> frozenset[str]:
    """Folded words of the claim that the evidence holds in another form, as the engine's
    checks read them: a name and its abbreviation or country adjective ("UN" for "United
    Nations", `lexical.named_otherwise`) and a date written otherwise ("1945-10-24" for
    "24 October 1945", `normalise.dates_held`). They are not unsupported words."""
    names = named_otherwise(claim, evidence)
    found = {_fold(w.text) for w in words(claim) if stem(w.text) in names}
    for date in dates_held(claim, evidence):
        found.update(_fold(w.text) for w in words(date))
    return frozenset(found)


def absent_phrases(claim: str, offset: int, vocab: frozenset[str]) -> list[tuple[int, int]]:
    """Byte spans of runs of adjacent content words missing from `vocab`, as the claim
    reads rendered: no words of link destinations, no run across a Markdown mark."""
    raw = claim.encode("utf-8")
    hidden = [
        (
            offset + len(claim[: m.start()].encode("utf-8")),
            offset + len(claim[: m.end()].encode("utf-8")),
        )
        for m in _LINK_TARGET.finditer(claim)
    ]
    phrases: list[tuple[int, int]] = []
    joined = False  # the previous word was missing too, with nothing but text between
    for word in words(claim, offset):
        if any(start <= word.start < end for start, end in hidden):
            joined = False
            continue
        missing = is_content(word.text) and not _known(word.text, vocab)
        gap = raw[phrases[-1][1] - offset : word.start - offset] if phrases else b""
        if missing and joined and not _MARKS.intersection(gap.decode("utf-8")):
            phrases[-1] = (phrases[-1][0], word.end)
        elif missing:
            phrases.append((word.start, word.end))
        joined = missing
    return phrases


def evidence_passages(claim: str, fact: str, keep: int = 2) -> str:
    """The fact's `keep` sentences sharing most words with the claim, in their order:
    what the verifier reads (it would truncate a whole long fact)."""
    wanted = {_fold(w.text) for w in words(claim) if is_content(w.text)}
    sentences = split(fact) or [fact]
    ranked = sorted(
        range(len(sentences)), key=lambda i: (-len(wanted & vocabulary(sentences[i])), i)
    )
    return " ".join(sentences[i] for i in sorted(ranked[:keep]))


def best_passage(claim: str, facts: Sequence[str]) -> tuple[int, str] | None:
    """(fact index, passage) of the evidence an unsupported claim's words are measured
    against: the fact sharing most words with it, cut to its sentences sharing most (as
    `unsupported_spans` reads them), so a page can show it beside the marked words.
    None without facts."""
    best = best_evidence(claim, [vocabulary(f) for f in facts])
    return None if best is None else (best, evidence_passages(claim, facts[best]))


def _masked(claim: str, offset: int, span: tuple[int, int]) -> str:
    raw = claim.encode("utf-8")
    return (raw[: span[0] - offset] + raw[span[1] - offset :]).decode("utf-8", "replace")


def refine(
    claim: str,
    offset: int,
    evidence: str,
    phrases: list[tuple[int, int]],
    scorer: Scorer,
) -> list[tuple[int, int]]:
    """The phrases whose masking raises the verifier's score by MIN_GAIN, else all."""
    if not phrases:
        return phrases
    pairs = [(claim, evidence)] + [(_masked(claim, offset, p), evidence) for p in phrases]
    scores = scorer(pairs)
    base = scores[0]
    kept = [p for p, s in zip(phrases, scores[1:], strict=True) if s - base >= MIN_GAIN]
    return kept or phrases


@dataclass(frozen=True)
class ClaimToExplain:
    text: str
    start: int  # UTF-8 byte offset of the claim in the answer


def unsupported_spans(
    claims: Sequence[ClaimToExplain],
    facts: Sequence[str],
    scorer: Scorer | None = None,
    refine_budget: int = 0,
) -> list[tuple[tuple[int, int], ...]]:
    """For each claim, byte spans (in the answer) of the words no evidence backs.

    `refine_budget` is the most verifier calls spent refining (0: lexical only).
    """
    vocabularies = [vocabulary(f) for f in facts]
    budget = refine_budget
    out: list[tuple[tuple[int, int], ...]] = []
    for claim in claims:
        best = best_evidence(claim.text, vocabularies)
        vocab = vocabularies[best] if best is not None else frozenset()
        if best is not None:
            vocab |= matched_otherwise(claim.text, facts[best])
        phrases = absent_phrases(claim.text, claim.start, vocab)[:MAX_PHRASES]
        if scorer is not None and best is not None and phrases and budget > len(phrases):
            budget -= len(phrases) + 1
            evidence = evidence_passages(claim.text, facts[best])
            phrases = refine(claim.text, claim.start, evidence, phrases, scorer)
        out.append(tuple(phrases))
    return out
