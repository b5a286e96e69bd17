"""Every check's own case table, both ways, for every language it declares."""

from __future__ import annotations

import pytest

from grounding_app.engine.checks import (
    CONTRADICTION,
    HEDGE,
    NUMBER,
    ROLE,
    Reading,
    fired,
    registry,
)
from grounding_app.engine.lang import PROFILES

CHECKS = registry()
CASES = [
    pytest.param(check, language, claim, passages, expected, id=f"{check.name}-{language}-{i}")
    for check in CHECKS
    for language in sorted(check.languages)
    for i, (claim, passages, expected) in enumerate(check.cases[language])
]


@pytest.mark.parametrize(("check", "language", "claim", "passages", "expected"), CASES)
def test_case_table(check, language, claim, passages, expected):
    reading = Reading(claim, passages, statements=passages, language=language)
    assert check.fires(reading) is expected
    assert (check.kind in fired(reading, language, (check,))) is expected


@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.name)
def test_each_check_declares_its_languages_and_cases_both_ways(check):
    assert check.kind in (CONTRADICTION, ROLE, HEDGE, NUMBER)
    assert check.languages and check.languages <= set(PROFILES)
    for language in check.languages:
        assert {expected for _, _, expected in check.cases[language]} == {True, False}


def test_a_check_is_not_run_for_a_language_it_does_not_declare():
    (check,) = [c for c in CHECKS if c.name == "substitution"]
    reading = Reading("Rome is the capital of Austria.", ("Vienna is the capital of Austria.",))
    assert fired(reading, "en", CHECKS) == {CONTRADICTION}
    assert fired(reading, "he", CHECKS) == set()
    assert "he" not in check.languages


def test_names_are_unique():
    assert len({c.name for c in CHECKS}) == len(CHECKS)
