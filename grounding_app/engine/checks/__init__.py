"""The checks: what a judge does not see, each one small module, run over a registry.

A check reads a claim against the evidence a judge was shown and says whether that
evidence contradicts the claim in one known way (another name or number in the claim's
place, a copied sentence with other words of the evidence swapped in, a number given to
another role, a record's yes/no the other way round, the claim's action done by someone
else, a hedge dropped, a number the evidence does not state, a split vote called
unanimous). Each declares the languages its reading is written for; the pipeline runs
the checks of the claim's language and lowers the judge's odds by the penalty of the
check's kind. Each module carries its own case table, both ways (what it must catch,
what it must leave alone), run by `tests/engine/test_checks.py` for every declared
language.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

CONTRADICTION = "contradiction"
ROLE = "role"
HEDGE = "hedge"
# A number the evidence does not state, rounded, hedged or derived (`checks/numbers.py`).
NUMBER = "number"

# Which checks are on, per language: chosen by `grounding_lab/check_report.py` on
# fit_unseen's fit half (a check whose firings are too often on supported claims is off by default).
CHECKS_FILE = Path(__file__).resolve().parents[1] / "data" / "checks.json"


@dataclass(frozen=True)
class Reading:
    """A claim and the evidence one judge input showed, as the checks read them."""

    claim: str  # as the answer writes it, normalised for reading
    passages: tuple[str, ...]  # the evidence passages, normalised the same way
    # The claim with its dates written as the evidence writes them ("4 July 1950").
    dated: str = ""
    # A structured fact's statements among the passages ("outdoor seating: no.").
    statements: tuple[str, ...] = ()
    # Proper names of the facts the evidence comes from, for the role check.
    names: frozenset[str] = frozenset()
    # The claim's language, for checks that read words through its profile.
    language: str = "en"
    # The whole facts the evidence comes from, as given (a record's statements are read
    # in `statements`): who did what is read in the whole article, not only in the window
    # a judge was shown. Not normalised: that costs 40 ms a 10,000-character fact.
    facts: tuple[str, ...] = ()

    @property
    def claim_as_dated(self) -> str:
        return self.dated or self.claim


@dataclass(frozen=True)
class Check:
    name: str
    kind: str  # CONTRADICTION, ROLE, HEDGE or NUMBER: which penalty it carries
    fires: Callable[[Reading], bool]
    # Per language the check reads: (claim, evidence passages, fires?), both ways.
    cases: Mapping[str, tuple[tuple[str, tuple[str, ...], bool], ...]]

    @property
    def languages(self) -> frozenset[str]:
        """The languages it is written for: those its case table covers."""
        return frozenset(self.cases)


def all_checks() -> tuple[Check, ...]:
    """Every check, in the order the pipeline runs them, whether on or off."""
    from grounding_app.engine.checks import (
        hedge,
        misplaced_number,
        numbers,
        record_flag,
        role,
        speaker,
        substitution,
        swap,
        vote,
    )

    return (
        substitution.CHECK,
        swap.CHECK,
        misplaced_number.CHECK,
        numbers.CHECK,
        record_flag.CHECK,
        role.CHECK,
        speaker.CHECK,
        hedge.CHECK,
        vote.CHECK,
    )


def registry(path: Path = CHECKS_FILE) -> tuple[Check, ...]:
    """The checks that are on, in the order the pipeline runs them, each for the languages
    `path` keeps it on for (its case table cut to them). A check the file does not name has
    not been measured yet and runs for every language it declares."""
    if not path.is_file():
        return all_checks()
    on: Mapping[str, list[str]] = json.loads(path.read_text(encoding="utf-8"))["on"]
    kept = []
    for check in all_checks():
        languages = set(on.get(check.name, check.languages)) & check.languages
        if languages:
            kept.append(replace(check, cases={k: check.cases[k] for k in sorted(languages)}))
    return tuple(kept)


def fired(reading: Reading, language: str, checks: tuple[Check, ...]) -> set[str]:
    """The kinds of the checks of ``language`` that find the reading contradicted."""
    return {c.kind for c in checks if language in c.languages and c.fires(reading)}
