"""Who did what: a claim that gives the evidence's action to another name in it.

The verifier reads "Leonardo DiCaprio directed Titanic." as supported by "Titanic was
directed by James Cameron. Leonardo DiCaprio starred in it.": every word is there, and a
six-layer reader does not track which name goes with which verb. Training on thousands
of such swaps did not teach it (docs/verifier-history.md, round 5). This check does it
by hand, for each clause of the claim that opens with a name (its subject): find the evidence
sentence stating the clause's action (its words, the ones nearest the subject weighing
most); when that sentence lacks the subject but names another doer (a name of two words
or more before the action, or after "by"), and holds no pronoun that could stand for the
subject, the evidence says someone else did it. Names are what the facts write
capitalised mid-sentence and never in lower case, so a summariser's lower case is read
too. On dev_realistic it fires on 1 % of the examples, 25 of 27 of them unsupported.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from grounding_app.engine.lang import profile
from grounding_app.engine.lang.sentences import sentences
from grounding_app.engine.lang.text import read

# Who did what is read in English's words.
_ENGLISH = profile("en")
stem = _ENGLISH.stem
_STOPWORDS = _ENGLISH.stopwords
_NEGATIONS = _ENGLISH.negations
_THIRD_PERSON = _ENGLISH.third_person_pronouns
# A claim's clauses: "A proposed X, which B criticised" and "A tested X, and B funded it".
_CLAUSE = _ENGLISH.clause_break
# Capitalised words that name no one who could do something, as stems.
_NOT_AGENTS = frozenset(stem(word) for word in _ENGLISH.not_agents)


@dataclass(frozen=True)
class _Token:
    stem: str
    name: bool


def clauses(text: str) -> list[str]:
    """A claim's clauses: "A proposed X, which B criticised" gives two."""
    return [clause for clause in _CLAUSE.split(text) if clause.strip()]


def proper_names(texts: Sequence[str]) -> frozenset[str]:
    """Stems the texts write capitalised where no sentence starts (or in a run of capitals
    that does), and never in lower case: their names, by which a lower-case claim's
    names are found too ("muhammadu buhari"). Set work over distinct words: a request
    may bring 200 long facts."""
    capital: set[str] = set()
    lower: set[str] = set()
    for passage in texts:
        written = read(passage).view("name cases", _name_cases)
        capital.update(written[0])
        lower.update(written[1])
    skip = _STOPWORDS | _NEGATIONS
    return frozenset(
        {stem(w) for w in capital if w.lower() not in skip}
        - {stem(w) for w in lower if w not in skip}
    )


def _name_cases(passage: str) -> tuple[frozenset[str], frozenset[str]]:
    """The words a text writes capitalised where no sentence starts (or in a run of
    capitals that does), and those it writes in lower case: read once per text."""
    capital: set[str] = set()
    lower: set[str] = set()
    for sentence in sentences(passage):
        words = read(sentence).name_words
        if not words:
            continue
        lower.update(w for w in words if w[0].islower())
        capital.update(w for w in words[1:] if w[0].isupper())
        if len(words) > 1 and words[1][0].isupper() and f"{words[0]} {words[1]}" in sentence:
            capital.add(words[0])
    return frozenset(capital), frozenset(lower)


@lru_cache(maxsize=64)
def _proper_names(texts: tuple[str, ...]) -> frozenset[str]:
    """`proper_names`, kept for the request: the role check reads each whole fact once per
    claim and option (a fact may be 10,000 characters)."""
    return proper_names(texts)


@lru_cache(maxsize=256)
def _read(passage: str, proper: frozenset[str]) -> tuple[tuple[_Token, ...], ...]:
    """A passage's sentences as tokens, kept like `_proper_names`."""
    return tuple(tuple(_tokens(s, proper)) for s in sentences(passage))


def _tokens(text: str, proper: frozenset[str]) -> list[_Token]:
    """Content words, personal pronouns, "by" (which marks the doer of a passive) and the
    particles that say which way an action goes ("against")."""
    out = []
    for word in read(text).name_words:
        lowered = word.lower()
        if (
            lowered in _THIRD_PERSON
            or lowered in _ENGLISH.agent_markers
            or lowered in _ENGLISH.action_particles
        ):
            out.append(_Token(lowered, False))
        elif lowered not in _STOPWORDS and lowered not in _NEGATIONS:
            stemmed = stem(word)
            out.append(_Token(stemmed, stemmed in proper))
    return out


def _names(tokens: Sequence[_Token]) -> list[tuple[int, frozenset[str]]]:
    """Runs of name tokens, each with the index where it starts."""
    groups: list[tuple[int, frozenset[str]]] = []
    run: list[str] = []
    for i, token in enumerate([*tokens, _Token("", False)]):
        if token.name:
            run.append(token.stem)
            continue
        if run and frozenset(run) - _NOT_AGENTS:
            groups.append((i - len(run), frozenset(run)))
        run = []
    return groups


def _doers(sentence: Sequence[_Token], action: frozenset[str]) -> list[frozenset[str]]:
    """The names that may do the sentence's action: those before its first action word,
    and the one after "by" ("was directed by James Cameron")."""
    first = next((i for i, t in enumerate(sentence) if t.stem in action), len(sentence))
    return [
        group
        for start, group in _names(sentence)
        if start < first or (start > 0 and sentence[start - 1].stem in _ENGLISH.agent_markers)
    ]


def _subject(clause: Sequence[_Token]) -> frozenset[str] | None:
    """The clause's subject: a name before any other word of it."""
    groups = _names(clause)
    return groups[0][1] if groups and groups[0][0] == 0 else None


def _weights(clause: Sequence[_Token], subject: frozenset[str]) -> dict[str, float]:
    """The clause's other words, those nearest the subject weighing most: its verb says
    what the claim has the subject do."""
    end = next((i for i, t in enumerate(clause) if not t.name), len(clause))
    weight: dict[str, float] = {}
    for i, t in enumerate(clause[end:], start=end):
        if t.stem not in subject and t.stem not in _THIRD_PERSON:
            weight[t.stem] = max(weight.get(t.stem, 0.0), 1.0 / (i - end + 1))
    return weight


def _done_by_another(
    clause: Sequence[_Token],
    subject: frozenset[str],
    read: Sequence[Sequence[_Token]],
    mentioned: frozenset[str],
) -> bool:
    weight = _weights(clause, subject)
    action = frozenset(t.stem for t in clause if not t.name and not t.stem.isdigit())
    action &= weight.keys()

    def cover(sentence: Sequence[_Token]) -> float:
        return sum(weight[s] for s in {t.stem for t in sentence} & weight.keys())

    best = max((cover(s) for s in read), default=0.0)
    stating = [s for s in read if cover(s) == best]
    if best == 0 or not any(action & {t.stem for t in s} for s in stating):
        return False
    if any(subject & {t.stem for t in s} for s in stating):
        return False
    for sentence in stating:
        rivals = [
            g for g in _doers(sentence, action) if len(g) > 1 and not g & (subject | mentioned)
        ]
        if rivals and not {t.stem for t in sentence} & _THIRD_PERSON:
            return True
    return False


def misattributes(claim: str, evidence: Sequence[str], names: frozenset[str] = frozenset()) -> bool:
    """Whether the evidence states a clause of the claim about another name.

    `names`: `proper_names` of the whole facts the evidence was taken from, for a claim
    whose name the evidence passages lack ("muhammadu buhari was shot" against a passage
    where Malala Yousafzai was).
    """
    proper = names | _proper_names(tuple(evidence))
    markers = _ENGLISH.agent_markers
    tokens = [[t for t in _tokens(c, proper) if t.stem not in markers] for c in clauses(claim)]
    subjects = [_subject(clause) for clause in tokens]
    if not any(subjects):
        return False
    read = [sentence for passage in evidence for sentence in _read(passage, proper)]
    # Names the claim mentions but not as a doer ("raids in the West Bank") are no rivals.
    mentioned = frozenset(
        stem for clause in tokens for _, group in _names(clause) for stem in group
    ) - frozenset().union(*(s for s in subjects if s))
    return any(
        _done_by_another(clause, subject, read, mentioned)
        for clause, subject in zip(tokens, subjects, strict=True)
        if subject
    )
