"""Rounded, hedged and derived numbers as LLM answers write them (issue 31), read by the
real default engine: supported at the threshold when the evidence states them, and their
wrong twins unsupported."""

from __future__ import annotations

import pytest

from grounding_app.engine.pipeline import GroundingEngine
from grounding_app.engine.types import CheckRequest, Fact

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

PARIS = (
    "Paris, the capital and largest city of France, has an estimated population of"
    " 2,102,650 residents."
)
BUDGET = "This year $20.3 million of a $50 million budget goes to schools."
TRIO = (
    "Ann Lee, Bo Park and Cy Diaz appeared at the Old Bailey in London on 28 April."
    " The trio will next appear before Woolwich Crown Court in September."
)
# The numbers check accepts the bound; the verifier reads "over 2 million" against
# 2,102,650 at 0.23. Writing the bound as the evidence's value for it ("2,102,650") passed
# it, but also passed two unsupported dev_realistic claims ("arrested more than 100
# people" against "killed 150 people"), so a bound is shown to the verifier as written.
BOUND_READ_LOW = "the verifier reads a bound against the value it bounds at 0.23"


@pytest.fixture(scope="module")
def engine() -> GroundingEngine:
    return GroundingEngine.default()


@pytest.mark.parametrize(
    ("answer", "fact", "expected"),
    [
        ("Paris has a population of about 2.1 million people.", PARIS, True),
        ("Paris has a population of about 3.1 million people.", PARIS, False),
        ("Paris has a population of 2.1M.", PARIS, True),
        pytest.param(
            "Paris has over 2 million residents.",
            PARIS,
            True,
            marks=pytest.mark.xfail(strict=True, reason=BOUND_READ_LOW),
        ),
        ("Paris has over 3 million residents.", PARIS, False),
        ("Roughly 40% of the budget goes to schools.", BUDGET, True),
        ("Roughly 60% of the budget goes to schools.", BUDGET, False),
        ("Three people appeared at the Old Bailey in London.", TRIO, True),
        ("Four people appeared at the Old Bailey in London.", TRIO, False),
    ],
)
def test_rounded_hedged_and_derived_numbers_are_compared_by_value(engine, answer, fact, expected):
    response = engine.check(CheckRequest(answer, (Fact(fact),), enable_claim_level_score=True))
    (claim,) = response.claims
    assert bool(claim.citation_indices) is expected, claim
    assert (claim.score >= 0.6) is expected, claim
