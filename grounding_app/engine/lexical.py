"""Lexical evidence checks: the things an embedding cannot see.

Sentence embeddings put "released in 1997" next to "released in 1975" and "Kate
Winslet" next to "Brad Pitt". These helpers pull out the tokens that decide whether a
claim is only partly true: numbers, names, negations and content words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import Stemmer

_WORD = re.compile(r"[^\W_]+(?:['\u2019][^\W_]+)*", re.UNICODE)
_NUMBER = re.compile(r"(?<![\w.])[-+]?\d[\d,]*(?:\.\d+)?(?![\d])")
_THOUSANDS = re.compile(r"^\d{1,3}(?:,\d{3})+(?:\.\d+)?$")

STOPWORDS = frozenset(
    """a about above after again against all also am an and any are as at be because been
    before being below between both but by can could did do does doing down during each
    few for from further had has have having he her here hers herself him himself his how
    i if in into is it its itself just me more most my myself of off on once only or other
    our ours ourselves out over own same she should so some such than that the their theirs
    them themselves then there these they this those through to too under until up very was
    we were what when where which while who whom why will with would you your yours
    yourself yourselves s t d ll m o re ve y said says say one
    """.split()
)

NEGATIONS = frozenset(
    """not no never none nobody nothing neither nor nowhere cannot without n't isn't aren't
    wasn't weren't don't doesn't didn't won't wouldn't can't couldn't shouldn't hasn't
    haven't hadn't""".split()
)

_NUMBER_WORDS = {
    word: str(value)
    for value, word in enumerate(
        """zero one two three four five six seven eight nine ten eleven twelve thirteen
        fourteen fifteen sixteen seventeen eighteen nineteen twenty""".split()
    )
}
_NUMBER_WORDS.update({"thirty": "30", "forty": "40", "fifty": "50", "sixty": "60"})
_NUMBER_WORDS.update({"seventy": "70", "eighty": "80", "ninety": "90", "hundred": "100"})
_NUMBER_WORDS["dozen"] = "12"

# Capitalised words that start sentences or fill titles without naming anything.
_NOT_NAMES = STOPWORDS | frozenset(
    "however yes no according although though many several most some its it's".split()
)

_stemmer = Stemmer.Stemmer("english")


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    return _stemmer.stemWord(word.lower())


def words(text: str) -> list[str]:
    return _WORD.findall(text)


def content_stems(text: str) -> list[str]:
    """Stems of the words that carry meaning (no stopwords, no negations)."""
    return [
        stem(w)
        for w in words(text)
        if w.lower() not in STOPWORDS and w.lower() not in NEGATIONS and not w.isdigit()
    ]


def normalise_number(token: str) -> str:
    token = token.lstrip("+")
    if _THOUSANDS.match(token.lstrip("-")):
        token = token.replace(",", "")
    token = token.rstrip(",")
    if "." in token:
        token = token.rstrip("0").rstrip(".")
    return token


def numbers(text: str) -> set[str]:
    found = {normalise_number(m.group()) for m in _NUMBER.finditer(text)}
    found.update(_NUMBER_WORDS[w.lower()] for w in words(text) if w.lower() in _NUMBER_WORDS)
    found.discard("")
    return found


def names(text: str) -> set[str]:
    """Stems of capitalised words that look like names, dates or titles."""
    found: set[str] = set()
    for m in _WORD.finditer(text):
        word = m.group()
        if not word[0].isupper() or word.lower() in _NOT_NAMES:
            continue
        found.add(stem(word))
    return found


# Openings that make a sentence lean on the one before it ("It was released in 1997.").
_REFERRING = frozenset(
    "it its he him his she her they them their this that these those there such the both"
    " former latter".split()
)


def refers_back(sentence: str) -> bool:
    """Whether the sentence needs the answer's previous sentences to be read correctly."""
    first = words(sentence)[:1]
    return bool(first) and first[0].lower() in _REFERRING


_PRONOUNS = {
    "it": "",
    "he": "",
    "she": "",
    "they": "",
    "its": "'s",
    "his": "'s",
    "her": "'s",
    "their": "'s",
}
_SUBJECT = re.compile(r"^(?:The\s+)?(?:[A-Z][\w'\u2019.&-]*\s+){0,3}[A-Z][\w'\u2019.&-]*")


def resolve_reference(claim: str, context: str) -> str | None:
    """'It won 11 awards.' after 'Titanic is a film.' -> 'Titanic won 11 awards.'

    Only a leading personal or possessive pronoun is replaced, by the name phrase that
    opens the last context sentence; None when there is no such pair to rely on.
    """
    first = claim.split(maxsplit=1)
    if len(first) < 2 or first[0].lower() not in _PRONOUNS or not context:
        return None
    last = re.split(r"(?<=[.!?])\s+", context.strip())[-1]
    subject = _SUBJECT.match(last)
    if not subject or subject.group().lower() in STOPWORDS:
        return None
    name = subject.group().strip()
    if words(name)[0].lower() in _PRONOUNS:
        return None
    return f"{name}{_PRONOUNS[first[0].lower()]} {first[1]}"


def has_negation(text: str) -> bool:
    lowered = text.lower().replace("\u2019", "'")
    return any(w in NEGATIONS for w in re.findall(r"[a-z]+(?:'[a-z]+)?", lowered)) or (
        "n't" in lowered
    )


@dataclass(frozen=True)
class LexicalFeatures:
    """How much of a claim the evidence text accounts for, token by token."""

    coverage: float  # share of the claim's content stems found in the evidence
    missing_numbers: int
    missing_names: int
    negation_mismatch: bool
    claim_content_words: int


def compare(claim: str, evidence: str) -> LexicalFeatures:
    """Check the claim's own tokens against the evidence.

    Only the claim is checked, never the sentences before it: context helps find the
    evidence and read pronouns, but must not add or remove support by itself.
    """
    claim_stems = set(content_stems(claim))
    evidence_stems = set(content_stems(evidence)) | {stem(w) for w in words(evidence)}
    covered = len(claim_stems & evidence_stems)
    coverage = covered / len(claim_stems) if claim_stems else 1.0
    missing_numbers = len(numbers(claim) - numbers(evidence))
    evidence_words = {stem(w) for w in words(evidence)}
    missing_names = len(names(claim) - evidence_words)
    return LexicalFeatures(
        coverage=coverage,
        missing_numbers=missing_numbers,
        missing_names=missing_names,
        negation_mismatch=has_negation(claim) != has_negation(evidence),
        claim_content_words=len(claim_stems),
    )
