"""Lexical evidence checks: the things an embedding cannot see.

Sentence embeddings put "released in 1997" next to "released in 1975" and "Kate
Winslet" next to "Brad Pitt". These helpers pull out the tokens that decide whether a
claim is only partly true: numbers, names, negations and content words.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache

from grounding_app.engine.lang import profile
from grounding_app.engine.lang.numbers import quantities, supported
from grounding_app.engine.lang.numbers import unsupported as unsupported_numbers
from grounding_app.engine.lang.sentences import sentences
from grounding_app.engine.lang.text import Token, opening_name, read
from grounding_app.engine.normalise import (
    canonical_number,
    canonical_numbers,
    date_spans,
    is_number_word,
    number_spans,
)
from grounding_app.engine.offsets import byte_prefix

# Names, references and negations are read in English's words (its profile).
_ENGLISH = profile("en")
stem = _ENGLISH.stem
_CAPITALS_ONLY = _ENGLISH.capitals_only
_DEFINITE = _ENGLISH.definite
_DEMONYMS = _ENGLISH.demonyms
_NAME_LINKS = _ENGLISH.name_links
_NEGATIONS = _ENGLISH.negations
_NOT_NAMES = _ENGLISH.not_names
_PERSONAL_PRONOUNS = _ENGLISH.personal_pronouns
_PRONOUN_ENDINGS = _ENGLISH.pronoun_endings
_REFERRING = _ENGLISH.referring
_STOPWORDS = _ENGLISH.stopwords


def words(text: str) -> list[str]:
    return list(read(text).words)


def content_stems(text: str) -> list[str]:
    """Stems of the words that carry meaning (no stopwords, no negations)."""
    return list(read(text).content_stems)


def normalise_number(token: str) -> str:
    """A digit token in the canonical form every number is compared in ("1,500" -> "1500")."""
    return canonical_number(token)


def numbers(text: str) -> set[str]:
    """The values of the numbers in ``text``, however written: "eleven" and "11" agree."""
    return canonical_numbers(text)


def names(text: str) -> set[str]:
    """Stems of capitalised words that look like names, dates or titles.

    Spelled-out numbers ("Eleven awards ...") are numbers, compared as such, not names.
    """
    found: set[str] = set()
    for word in read(text).words:
        if not word[0].isupper() or word.lower() in _NOT_NAMES or is_number_word(word):
            continue
        found.add(stem(word))
    return found


NUMBER_MARK = "number"
NAME_MARK = "name"


def claim_marks(claim: str, passage: str) -> list[tuple[int, int, str]]:
    """(start, end, kind) of the claim's numbers (`NUMBER_MARK`, compared by value) and
    names (`NAME_MARK`, as `names` reads them; a name's adjacent words joined) where
    `passage` states them, as UTF-8 byte spans of the passage in order: what a reviewer
    looks for in the evidence shown beside a claim."""
    values = canonical_numbers(claim)
    found: list[tuple[int, int, str]] = [
        (start, end, NUMBER_MARK) for start, end, value in number_spans(passage) if value in values
    ]
    wanted = names(claim)
    for token in read(passage).word_tokens:
        word = token.text
        if (
            not word[0].isupper()
            or word.lower() in _NOT_NAMES
            or is_number_word(word)
            or stem(word) not in wanted
        ):
            continue
        last = found[-1] if found and found[-1][2] == NAME_MARK else None
        if last is not None and not passage[last[1] : token.start].strip():
            found[-1] = (last[0], token.end, NAME_MARK)
        else:
            found.append((token.start, token.end, NAME_MARK))
    marks: list[tuple[int, int, str]] = []
    for start, end, kind in sorted(found):
        if not marks or start >= marks[-1][1]:
            marks.append((start, end, kind))
    prefix = byte_prefix(passage)
    return [(prefix[start], prefix[end], kind) for start, end, kind in marks]


# Abbreviations are short: a bound keeps the search linear on a long run of capitals.
_LONGEST_ABBREVIATION = 8
_ABBREVIATION = re.compile(r"\b(?:[A-Z]\.){2,8}|\b[A-Z][A-Z0-9&]{1,7}\b")


def _capitalised_runs(text: str) -> list[list[str]]:
    """Runs of two or more capitalised words, small linking words kept inside."""
    runs: list[list[str]] = []
    run: list[str] = []
    last_end = 0

    def close() -> None:
        while run and run[-1].lower() in _NAME_LINKS:
            run.pop()
        if sum(w.lower() not in _NAME_LINKS for w in run) >= 2:
            runs.append(list(run))
        run.clear()

    for token in read(text).word_tokens:
        word = token.text
        joined = bool(run) and text[last_end : token.start].strip(" \t-") == ""
        if word[:1].isupper() and not word.isupper():
            if not joined:
                close()
            run.append(word)
        elif run and joined and word.lower() in _NAME_LINKS:
            run.append(word)
        else:
            close()
        last_end = token.end
    close()
    return runs


# A request's evidence is read by several checks in turn; a small cache serves them all
# and keeps no more than the last few hundred texts.
@lru_cache(maxsize=256)
def _named_spans(text: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The initials of each capitalised run and of each stretch of two or more of its main
    words that no "and" crosses: "Bank of England and the United States" gives "beus",
    "be" (Bank of England) and "us" (United States); "National Aeronautics and
    Space Administration" gives "nasa"."""
    spans = []
    for run in _capitalised_runs(text):
        main = [i for i, w in enumerate(run) if w.lower() not in _NAME_LINKS]
        stretches = (
            (a, b)
            for a in range(len(main))
            for b in range(a + 1, min(len(main), a + _LONGEST_ABBREVIATION))
        )
        for a, b in stretches:
            part = tuple(run[main[a] : main[b] + 1])
            whole = a == 0 and b == len(main) - 1
            if whole or not any(w.lower() == "and" for w in part):
                initials = "".join(w[0] for w in part if w.lower() not in _NAME_LINKS)
                spans.append((initials.lower(), part))
    return tuple(spans)


def _abbreviations(text: str) -> set[str]:
    """The text's abbreviations ("UN", "U.S."), dots left out, in lower case."""
    return {_letters(m.group()) for m in _ABBREVIATION.finditer(text) if _is_abbreviation(m)}


def _letters(abbreviation: str) -> str:
    return abbreviation.replace(".", "").lower()


def _is_abbreviation(match: re.Match[str]) -> bool:
    """Two capitals at least: "UN", "U.S.", "G7" is one, "A1" is not."""
    return sum(c.isupper() for c in match.group()) >= 2


# Per country name, its adjectives: "france" -> {"french"}.
_COUNTRY_ADJECTIVES: dict[str, frozenset[str]] = {
    country: frozenset(a for a, names in _DEMONYMS.items() if country in names)
    for country in {name for names in _DEMONYMS.values() for name in names}
}


_PLACE_WORDS = frozenset(_DEMONYMS) | {country.split()[0] for country in _COUNTRY_ADJECTIVES}


def _has_phrase(phrase: str, written: Sequence[str]) -> bool:
    """Whether the words ``written`` hold the lower-case ``phrase`` ("united states")."""
    if phrase in _CAPITALS_ONLY:
        return phrase.upper() in written
    parts = phrase.split()
    n = len(parts)
    lowered = [w.lower() for w in written]
    return any(lowered[i : i + n] == parts for i in range(len(lowered) - n + 1))


def named_otherwise(claim: str, evidence: str) -> set[str]:
    """Stems of the claim's name words that the evidence writes in another form: "UN"
    where it has "United Nations", "European Union" where it has "EU", "French" where
    it has "France" (and back).

    The two forms share no word, so without this the claim "The UN was founded in 1945."
    lacked a name of "The United Nations was founded in 1945." (0.009), and "The French
    president" one of "The president of France" (0.58).
    """
    found = _abbreviated(claim, evidence)
    claim_words = words(claim)
    lowered = [w.lower() for w in claim_words]
    places = set(lowered) & _PLACE_WORDS
    if not places:
        return found
    evidence_words = words(evidence)
    evidence_set = {w.lower() for w in evidence_words}
    for word, adjective in zip(claim_words, lowered, strict=True):
        countries = _DEMONYMS.get(adjective, ()) if word[:1].isupper() else ()
        if any(_has_phrase(c, evidence_words) for c in countries):
            found.add(stem(word))
    for country, adjectives in _COUNTRY_ADJECTIVES.items():
        first = country.split()[0]
        if first in places and adjectives & evidence_set and _has_phrase(country, claim_words):
            found.update(stem(w) for w in country.split())
    return found


def _abbreviated(claim: str, evidence: str) -> set[str]:
    """Stems of the claim's name words the evidence abbreviates or spells out."""
    found: set[str] = set()
    matches = [m for m in _ABBREVIATION.finditer(claim) if _is_abbreviation(m)]
    if matches:
        expanded = {initials for initials, _ in _named_spans(evidence)}
        for match in matches:
            if _letters(match.group()) in expanded:
                found.update(stem(w) for w in words(match.group()))
    short = _abbreviations(evidence)
    if short:
        for initials, part in _named_spans(claim):
            if initials in short:
                found.update(stem(w) for w in part)
    return found


# How a sentence leans on the ones before it (`reference`).
PRONOUN = "pronoun"
DEFINITE_NOUN = "definite"


def reference(sentence: str) -> str | None:
    """`PRONOUN` where the sentence opens with a word that stands for something named
    before ("It ...", "These ..."): it is read with the sentences before it; `DEFINITE_NOUN`
    where it opens with a definite phrase that may ("The film ...", "There ..."): it is
    read alone and with them; None where it names its subject: it is read alone.
    """
    opening = words(sentence)[:2]
    if not opening:
        return None
    first = opening[0].lower()
    if first in _REFERRING:
        return PRONOUN
    if first not in _DEFINITE:
        return None
    if first == "the" and len(opening) > 1 and opening[1][:1].isupper():
        return None
    return DEFINITE_NOUN


def refers_back(sentence: str) -> bool:
    """Whether the sentence may need the answer's previous sentences to be read correctly."""
    return reference(sentence) is not None


def opens_with_pronoun(sentence: str) -> bool:
    """Whether a sentence opens with a personal or possessive pronoun ("It won ...")."""
    first = words(sentence)[:1]
    return bool(first) and first[0].lower() in _PRONOUN_ENDINGS


def subject_stems(sentence: str) -> list[str]:
    """Stems of the words that open a sentence, up to the first word that carries no
    meaning ("The film was released" -> film): what an "It" opening the next sentence
    stands for, as `resolve_reference` reads it in claims."""
    subject: list[str] = []
    for word in words(sentence):
        lower = word.lower()
        if lower in _STOPWORDS or lower in _NEGATIONS:
            if subject:
                break
            continue
        subject.append(stem(word))
    return subject


def resolve_reference(claim: str, context: str, names: frozenset[str] = frozenset()) -> str | None:
    """'It won 11 awards.' after 'Titanic is a film.' -> 'Titanic won 11 awards.'

    Only a leading personal or possessive pronoun is replaced, by the name phrase that
    opens the last context sentence; None when there is no such pair to rely on. Text in
    lower case has no capitals to find that phrase by: there it is the words that open
    the sentence and whose stems are in `names` (the facts' proper names,
    `roles.proper_names`), so "she was shot." after "malala yousafzai won." resolves.
    """
    first = claim.split(maxsplit=1)
    if len(first) < 2 or first[0].lower() not in _PRONOUN_ENDINGS or not context:
        return None
    last = sentences(context.strip())[-1]
    subject = opening_name(last)
    if subject and subject.lower() not in _STOPWORDS:
        name = subject
    else:
        opening = words(last)
        if opening and opening[0].lower() == "the":
            opening = opening[1:]
        run = list(itertools.takewhile(lambda w: stem(w) in names, opening))
        if not run:
            return None
        name = " ".join(run)
    if words(name)[0].lower() in _PRONOUN_ENDINGS:
        return None
    return f"{name}{_PRONOUN_ENDINGS[first[0].lower()]} {first[1]}"


def has_negation(text: str) -> bool:
    lowered = text.lower().replace("\u2019", "'")
    return any(w in _NEGATIONS for w in read(lowered).words) or ("n't" in lowered)


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
    evidence and read pronouns, but must not add or remove support by itself. Numbers
    are compared by value, rounded, hedged or derived (`checks/numbers.py`), so
    spelled-out ones are left out of the word coverage.
    """
    spelled = {stem(w) for w in words(claim) if is_number_word(w)}
    claim_stems = set(content_stems(claim)) - spelled
    # Every word's stem: the content stems are among them.
    evidence_stems = set(read(evidence).stems)
    covered = len(claim_stems & evidence_stems)
    coverage = covered / len(claim_stems) if claim_stems else 1.0
    missing_numbers = len(unsupported_numbers(claim, (evidence,)))
    missing_names = len(names(claim) - evidence_stems - named_otherwise(claim, evidence))
    return LexicalFeatures(
        coverage=coverage,
        missing_numbers=missing_numbers,
        missing_names=missing_names,
        negation_mismatch=has_negation(claim) != has_negation(evidence),
        claim_content_words=len(claim_stems),
    )


@dataclass(frozen=True)
class _Item:
    """A content token in reading order: a name (a run of capitalised words), a number
    (its value), a personal pronoun, or another word (its stem)."""

    kind: str  # "name", "number", "pronoun" or "word"
    keys: frozenset[str]


_NAME_JOINER = re.compile(r"[ \t-]+")


def _in_order(
    text: str, spans: Sequence[tuple[int, int, str]]
) -> Iterator[tuple[Token, str | None]]:
    """The words of ``text`` in order, each with None; a number (``spans``, in digits or
    in one or more words) once, as its first word with its value."""
    span, last_span = 0, -1
    for token in read(text).word_tokens:
        while span < len(spans) and spans[span][1] <= token.start:
            span += 1
        if span < len(spans) and spans[span][0] <= token.start:
            if span != last_span:
                last_span = span
                yield token, spans[span][2]
            continue
        yield token, None


def _items(text: str) -> list[_Item]:
    """The content of ``text`` in order; stopwords and negations drop out."""
    items: list[_Item] = []
    name: list[str] = []
    name_end = -1

    def close_name() -> None:
        if name:
            items.append(_Item("name", frozenset(name)))
            name.clear()

    for token, value in _in_order(text, number_spans(text)):
        if value is not None:
            close_name()
            items.append(_Item("number", frozenset({value})))
            continue
        word = token.text
        lower = word.lower()
        if lower in _PERSONAL_PRONOUNS:
            close_name()
            items.append(_Item("pronoun", frozenset({lower})))
            continue
        if lower in _STOPWORDS or lower in _NEGATIONS:
            close_name()
            continue
        if word[0].isupper() and lower not in _NOT_NAMES:
            if name and not _NAME_JOINER.fullmatch(text, name_end, token.start):
                close_name()
            name.append(stem(word))
            name_end = token.end
            continue
        close_name()
        items.append(_Item("word", frozenset({stem(word)})))
    close_name()
    return items


def substitutes(claim: str, evidence: Sequence[str]) -> bool:
    """Whether the evidence puts another name or number where the claim has one it lacks.

    "Rome is the capital of Austria." against "Vienna is the capital of Austria.": the
    claim's "Rome" is missing and, next to the same word ("capital"), the evidence has
    "Vienna", which the claim does not mention. The evidence then says something else
    about the claim's words, not something more, however many of them it contains.
    Each evidence passage is read on its own, as a sentence.
    """
    claim_items = _items(claim)
    claim_keys = frozenset().union(*(item.keys for item in claim_items))
    passages = [_items(passage) for passage in evidence]
    # A number the evidence states rounded, hedged or derived is no number it lacks.
    read = [quantities(passage) for passage in evidence]
    stated = (q.forms for q in quantities(claim) if supported(q, read))
    present = frozenset().union(
        *(item.keys for items in passages for item in items),
        named_otherwise(claim, " ".join(evidence)),
        *stated,
    )
    for i, item in enumerate(claim_items):
        if item.kind not in ("name", "number") or item.keys & present:
            continue
        for side in (-1, 1):
            if not 0 <= i + side < len(claim_items) or claim_items[i + side].kind != "word":
                continue
            anchor = claim_items[i + side]
            for items in passages:
                for k, other in enumerate(items):
                    slot = k - side
                    if other != anchor or not 0 <= slot < len(items):
                        continue
                    rival = items[slot]
                    if rival.kind == item.kind and not rival.keys & claim_keys:
                        return True
    return False


def _tokens(text: str) -> list[tuple[str, frozenset[str]]]:
    """Every token in reading order: ("number", values), ("stop", {}) for a stop word or
    negation, ("word", {stem}) for the rest. A number written in words is one token, and
    so is a date, holding its day's and year's values ("born 17 February 1991" is "born"
    then one number token {17, 1991}, not 17 after "born" and 1991 after "February")."""
    spans = number_spans(text)
    dates = date_spans(text)
    out: list[tuple[str, frozenset[str]]] = []
    last_date = -1
    for token, value in _in_order(text, spans):
        date = next((d for d, (a, b) in enumerate(dates) if a <= token.start < b), None)
        if date is not None:
            if date != last_date:
                a, b = dates[date]
                values = frozenset(v for start, end, v in spans if a <= start and end <= b)
                out.append(("number", values))
                last_date = date
            continue
        if value is not None:
            out.append(("number", frozenset({value})))
            continue
        lower = token.text.lower()
        if lower in _STOPWORDS or lower in _NEGATIONS:
            out.append(("stop", frozenset()))
        else:
            out.append(("word", frozenset({stem(lower)})))
    return out


def _governing(tokens: Sequence[tuple[str, frozenset[str]]], at: int) -> frozenset[str] | None:
    """The word a number at ``at`` follows: the token before it, past at most one stop
    word ("won 14", "nominated for 14"; not "games with a 3-0 win")."""
    back = at - 1
    if back >= 0 and tokens[back][0] == "stop":
        back -= 1
    if back >= 0 and tokens[back][0] == "word":
        return tokens[back][1]
    return None


def misplaces_number(claim: str, evidence: Sequence[str]) -> bool:
    """Whether the claim gives a number the evidence has to the wrong word.

    "The movie won 14 Academy Awards." against "The movie won 11 Academy Awards, and
    was nominated for fourteen": 14 is in the evidence, after another word ("nominated
    for"), and the word the claim puts before it ("won") is followed there by 11, and
    never by 14. Only the word before a number is compared (past at most one stop word):
    the word after it is usually its unit ("Academy Awards"), which both numbers share,
    and a word further back governs the number no more ("six games with a 3-0 win").
    """
    claim_tokens = _tokens(claim)
    passages = [_tokens(passage) for passage in evidence]
    claim_numbers = frozenset().union(*(k for kind, k in claim_tokens if kind == "number"))
    for i, (kind, values) in enumerate(claim_tokens):
        anchor = _governing(claim_tokens, i) if kind == "number" else None
        if anchor is None:
            continue
        follows = [
            tokens[k][1]
            for tokens in passages
            for k in range(len(tokens))
            if tokens[k][0] == "number" and _governing(tokens, k) == anchor
        ]
        elsewhere = any(
            tokens[k][0] == "number"
            and tokens[k][1] & values
            and _governing(tokens, k) not in (None, anchor)
            for tokens in passages
            for k in range(len(tokens))
        )
        if (
            elsewhere
            and follows
            and not any(keys & values for keys in follows)
            and any(not keys & claim_numbers for keys in follows)
        ):
            return True
    return False
