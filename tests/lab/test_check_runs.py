"""Recorded runs replay the engine: each option's checks are logged by name, on both the
verifier's path and word matching's, and replaying them gives the engine's own score."""

from __future__ import annotations

import io
import json
import math

import pytest

from grounding_app.engine.aggregate import FEATURES, Aggregator
from grounding_app.engine.checks import all_checks
from grounding_app.engine.encoders import HashingEncoder
from grounding_app.engine.pipeline import GroundingEngine
from grounding_app.engine.types import Fact
from grounding_app.formats.grounding_jsonl import Example
from grounding_lab.check_runs import (
    _match_options,
    checks_on,
    example_score,
    option_score,
    record,
    sample_by_id,
)

KINDS = {c.name: c.kind for c in all_checks()}
PENALTIES = {"contradiction": 5.0, "role": 4.0, "hedge": 3.0}


class _Judge:
    def score(self, pairs, encoder=None):
        return [0.8 for _ in pairs]


def _example(claim: str, fact: str, id: str = "x") -> Example:
    return Example(id=id, facts=(Fact(fact),), claim=claim, label=0, source="s")


def _record(*examples: Example) -> tuple[list[dict], int]:
    sink = io.StringIO()
    engine = GroundingEngine(HashingEncoder(), _Judge())
    engine.checks = all_checks()  # as check_runs records: every check on
    differs = record(engine, examples, sink)
    return [json.loads(line) for line in sink.getvalue().splitlines()], differs


def test_the_verifier_path_names_the_check_that_fired_and_replays_exactly():
    (run,), differs = _record(
        _example("Rome is the capital of Austria.", "Vienna is the capital of Austria.")
    )
    assert differs == 0
    ((option,),) = [c["options"] for c in run["claims"]]
    assert option["checks"] == ["substitution"]
    assert math.isclose(option["p"], 0.8) and len(option["x"]) == len(FEATURES)
    assert run["score"] < 0.2  # the default engine settings: a penalty of 3 logits


def test_word_matching_options_keep_their_checks_and_scores_before_penalties():
    # A Hebrew claim that copies its fact with one word of the next sentence swapped in.
    (check,) = [c for c in all_checks() if c.name == "swap"]
    claim, passages, fires = check.cases["he"][0]
    assert fires
    (run,), differs = _record(_example(claim, " ".join(passages)))
    assert differs == 0
    (matched,) = run["claims"]
    assert matched["by"] == "word_matching" and matched["language"] == "he"
    assert all(o["x"] is None for o in matched["options"])
    assert any("swap" in o["checks"] for o in matched["options"])
    # The scores kept are the judge's, before the penalty lowered them in place.
    assert max(o["p"] for o in matched["options"]) > run["score"]


def test_a_supported_claim_fires_nothing():
    (run,), differs = _record(
        _example("Vienna is the capital of Austria.", "Vienna is the capital of Austria.")
    )
    assert differs == 0
    assert [o["checks"] for c in run["claims"] for o in c["options"]] == [[]]


@pytest.mark.parametrize(
    ("checks", "on", "expected"),
    [
        ([], {"substitution"}, 0.8),
        (["substitution"], {"substitution"}, 0.8 / (0.8 + 0.2 * math.exp(5.0))),
        (["substitution"], set(), 0.8),
        # Two checks of one kind cost one penalty; two kinds add up.
        (["substitution", "swap"], {"substitution", "swap"}, 0.8 / (0.8 + 0.2 * math.exp(5.0))),
        (["substitution", "hedge"], {"substitution", "hedge"}, 0.8 / (0.8 + 0.2 * math.exp(8.0))),
        (["role"], {"role"}, 0.8 / (0.8 + 0.2 * math.exp(4.0))),
    ],
)
def test_option_score_applies_the_penalties_of_the_checks_on(checks, on, expected):
    option = {"p": 0.8, "x": None, "checks": checks}
    assert math.isclose(option_score(option, on, KINDS, PENALTIES), expected)


def test_the_aggregator_reads_check_flags_rebuilt_from_the_checks_on():
    x = [0.0] * len(FEATURES)
    x[FEATURES.index("contradiction")] = 1.0  # as recorded, with every check on
    option = {"p": 0.5, "x": x, "checks": ["substitution"]}
    weights = tuple(-4.0 if f == "contradiction" else 0.0 for f in FEATURES)
    aggregator = Aggregator(weights, 0.0)
    assert math.isclose(
        option_score(option, {"substitution"}, KINDS, PENALTIES, aggregator),
        1 / (1 + math.exp(4.0)),
    )
    assert math.isclose(option_score(option, set(), KINDS, PENALTIES, aggregator), 0.5)


def test_an_example_is_its_weakest_claims_best_option_and_checks_are_on_per_language():
    fired = {"p": 0.9, "x": None, "checks": ["hedge"]}
    clean = {"p": 0.7, "x": None, "checks": []}
    run = {
        "claims": [
            {"language": "en", "options": [fired, clean]},
            {"language": "he", "options": [fired]},
        ]
    }
    hedge_he = 0.9 / (0.9 + 0.1 * math.exp(3.0))
    assert math.isclose(example_score(run, {"hedge": {"en", "he"}}, KINDS, PENALTIES), hedge_he)
    assert math.isclose(example_score(run, {"hedge": {"en"}}, KINDS, PENALTIES), 0.7)
    assert math.isclose(example_score(run, {"hedge": {"he"}}, KINDS, PENALTIES), hedge_he)
    assert example_score({"claims": []}, {}, KINDS, PENALTIES) == 1.0
    assert (
        example_score({"claims": [{"language": "en", "options": []}]}, {}, KINDS, PENALTIES) == 0.0
    )


def test_match_options_take_the_reading_of_their_fact():
    class R:
        def __init__(self, *passages: str) -> None:
            self.passages = passages

    readings = [R("a one.", "a two."), R("b one.")]
    calls = [(0, "swap", False), (0, "hedge", True), (1, "swap", True), (1, "hedge", False)]
    texts = ["a one.", "b one.", "a two.", "a one. a two."]
    options = _match_options(texts, [0.1, 0.2, 0.3, 0.4], calls, readings)  # type: ignore[arg-type]
    assert [o["checks"] for o in options] == [["hedge"], ["swap"], ["hedge"], ["hedge"]]
    assert [o["p"] for o in options] == [0.1, 0.2, 0.3, 0.4]


def test_sampling_is_by_id_hash_per_source_and_skip_extends_without_repeats():
    examples = [
        Example(id=f"{s}-{i}", facts=(Fact("f"),), claim="c", label=i % 2, source=s)
        for s in ("a", "b")
        for i in range(20)
    ]
    first = sample_by_id(examples, 5)
    rest = sample_by_id(examples, 100, skip=5)
    assert sorted(e.source for e in first) == ["a"] * 5 + ["b"] * 5
    assert {e.id for e in first} | {e.id for e in rest} == {e.id for e in examples}
    assert not {e.id for e in first} & {e.id for e in rest}
    assert sample_by_id(list(reversed(examples)), 5) == first


def test_checks_on_lists_each_checks_languages():
    on = checks_on(all_checks())
    assert on["swap"] == frozenset({"he"}) and "en" in on["substitution"]
