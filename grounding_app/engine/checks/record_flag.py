"""A record's yes/no, read against the claim both ways.

The judge reads "outdoor seating: no." as support for "Luigi's has outdoor seating."
(0.91), and "restaurants reservations: yes." as no support for "Customers can make
reservations." (0.25-0.45): it never saw a record in training. A claim's clause that
names a key's last word ("seating"; a stem sharing its first five letters will do, as
"deliv" in "delivers" for "deliveri" in "delivery") must agree with the answer: negated
for "no", not negated for "yes" (`flag_disagrees`, a contradiction). A claim each of
whose clauses names such a key, agrees with it, and says nothing else than the record's
other statements and words of having or offering (the profile's `offering`) states only
what the record states (`record_states`): the pipeline lifts the judge's odds for it.
The statements are read by the profile's `record_flag` pattern.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache

from grounding_app.engine.checks import CONTRADICTION, Check, Reading
from grounding_app.engine.lang import Profile, profile
from grounding_app.engine.lexical import content_stems, has_negation, stem
from grounding_app.engine.roles import clauses


@cache
def _offering(language: str) -> frozenset[str]:
    """The stems of the words that only say a thing is offered."""
    return frozenset(stem(word) for word in profile(language).offering)


@dataclass(frozen=True)
class _Flag:
    key: tuple[str, ...]  # the key's content stems, its last word last
    yes: bool


def _flags(statements: Iterable[str], words_of: Profile) -> list[_Flag]:
    flags = []
    for statement in statements:
        match = words_of.record_flag.fullmatch(statement)
        if match is not None:
            key = tuple(content_stems(match.group("key")))
            if key:
                flags.append(_Flag(key, match.group("yes") is not None))
    return flags


def same_word(a: str, b: str) -> bool:
    """Equal stems, or one the start of the other and five letters or more."""
    short, long = sorted((a, b), key=len)
    return short == long or (len(short) >= 5 and long.startswith(short))


def _named(flag: _Flag, stems: Sequence[str]) -> bool:
    """Whether a clause names the flag's key by its last word."""
    return any(same_word(flag.key[-1], word) for word in stems)


def flag_disagrees(claim: str, statements: tuple[str, ...], language: str = "en") -> bool:
    """Whether a record's yes/no statement says the opposite of a clause of the claim
    about its key ("they deliver, but have no seating" is read clause by clause)."""
    flags = _flags(statements, profile(language))
    for clause in clauses(claim) if flags else ():
        stems = content_stems(clause)
        negated = has_negation(clause)
        if any(flag.yes == negated and _named(flag, stems) for flag in flags):
            return True
    return False


def record_states(claim: str, statements: tuple[str, ...], language: str = "en") -> bool:
    """Whether every clause of the claim says no more than a record's yes or no it names
    (with the record's other statements, for "Luigi's" or "an Italian restaurant")."""
    words_of = profile(language)
    flags = _flags(statements, words_of)
    if not flags:
        return False
    offering = _offering(language)
    known = {
        s
        for statement in statements
        if words_of.record_flag.fullmatch(statement) is None
        for s in content_stems(statement)
    }
    parts = clauses(claim)
    for clause in parts:
        stems = content_stems(clause)
        named = [flag for flag in flags if _named(flag, stems)]
        if not named or any(flag.yes == has_negation(clause) for flag in named):
            return False
        keys = [word for flag in named for word in flag.key]
        for word in stems:
            if word in offering or word in known or any(same_word(word, k) for k in keys):
                continue
            return False
    return bool(parts)


def _fires(reading: Reading) -> bool:
    return flag_disagrees(reading.claim, reading.statements, reading.language)


CHECK = Check(
    "record_flag",
    CONTRADICTION,
    _fires,
    {
        "en": (
            ("Luigi's has outdoor seating.", ("attributes, outdoor seating: no.",), True),
            ("Luigi's does not deliver.", ("attributes, restaurants delivery: yes.",), True),
            (
                "Luigi's takes reservations, but it has no outdoor seating.",
                ("restaurants reservations: yes.", "outdoor seating: yes."),
                True,
            ),
            ("Luigi's has no outdoor seating.", ("attributes, outdoor seating: no.",), False),
            ("Luigi's delivers.", ("attributes, restaurants delivery: yes.",), False),
            ("Luigi's has free WiFi.", ("attributes, outdoor seating: no.",), False),
            (
                "Luigi's takes reservations, but it has no outdoor seating.",
                ("restaurants reservations: yes.", "outdoor seating: no."),
                False,
            ),
        ),
    },
)
