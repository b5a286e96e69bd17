"""The aggregator's path through the pipeline: each option's features reach the recorder,
and an aggregator, when given, replaces the checks' fixed penalties."""

from __future__ import annotations

import math

from grounding_app.engine.aggregate import FEATURES, Aggregator
from grounding_app.engine.checks import all_checks
from grounding_app.engine.encoders import HashingEncoder
from grounding_app.engine.pipeline import GroundingEngine
from grounding_app.engine.scales import logit
from grounding_app.engine.types import CheckRequest, Fact

FACTS = (Fact("Vienna is the capital of Austria."),)


class _Judge:
    def score(self, pairs, encoder=None):
        return [0.8 for _ in pairs]


def request(answer: str) -> CheckRequest:
    return CheckRequest(answer, FACTS, enable_claim_level_score=True)


def engine_with_every_check(aggregator: Aggregator | None = None) -> GroundingEngine:
    """The substitution check read here is off by default (docs/checks.md): run them all."""
    engine = GroundingEngine(HashingEncoder(), _Judge(), aggregator=aggregator)
    engine.checks = all_checks()
    return engine


def test_the_recorder_gets_every_option_with_its_checks():
    engine = engine_with_every_check()
    seen: list[tuple[int, tuple[float, ...]]] = []
    engine.recorder = lambda claim, features: seen.append((claim, features))
    engine.check(request("Rome is the capital of Austria."))
    ((claim, features),) = seen
    assert claim == 0 and len(features) == len(FEATURES)
    named = dict(zip(FEATURES, features, strict=True))
    assert math.isclose(named["verifier"], logit(0.8))
    assert named["contradiction"] == 1.0 and named["role"] == named["hedge"] == 0.0


def test_without_an_aggregator_the_fixed_penalty_applies():
    engine = engine_with_every_check()
    (claim,) = engine.check(request("Rome is the capital of Austria.")).claims
    penalty = engine.settings.contradiction_penalty
    assert math.isclose(claim.score, 0.8 / (0.8 + 0.2 * math.exp(penalty)))


def test_an_aggregator_replaces_the_penalties():
    # Weights that read the verifier alone, and one that reads only the contradiction.
    alone = Aggregator(tuple(1.0 if f == "verifier" else 0.0 for f in FEATURES), 0.0)
    engine = engine_with_every_check(alone)
    (claim,) = engine.check(request("Rome is the capital of Austria.")).claims
    assert math.isclose(claim.score, 0.8)
    sinking = Aggregator(tuple(-9.0 if f == "contradiction" else 0.0 for f in FEATURES), 2.0)
    engine = engine_with_every_check(sinking)
    wrong, right = engine.check(
        request("Rome is the capital of Austria. Vienna is the capital of Austria.")
    ).claims
    assert math.isclose(wrong.score, 1 / (1 + math.exp(7.0)))
    assert math.isclose(right.score, 1 / (1 + math.exp(-2.0)))
