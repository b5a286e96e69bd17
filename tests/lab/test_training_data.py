"""The verifier's training data: hard variants, evidence selection, weighting, calibration."""

from __future__ import annotations

import random

import numpy as np
import pytest

from grounding_app.engine import Fact
from grounding_app.formats.grounding_jsonl import Example
from grounding_lab import augment
from grounding_lab.augment import Pair
from grounding_lab.train_verifier import batches, calibrate, pair_weights
from grounding_lab.verifier_pairs import example_pairs, select_evidence

PAIR = Pair(
    claim="Titanic won 11 Academy Awards in 1998.",
    context="",
    evidence="The movie Titanic won 11 Academy Awards in 1998 out of 14 nominations.",
    label=1,
    source="fib",
)


def test_changed_number_is_unsupported_and_absent_from_evidence():
    evidence_words = {w.rstrip(".") for w in PAIR.evidence.split()}
    made = [augment.change_number(PAIR, random.Random(seed)) for seed in range(20)]
    assert sum(m is not None for m in made) >= 15  # None only when the new number is in evidence
    for m in filter(None, made):
        assert m.label == 0 and m.kind == "number" and m.claim != PAIR.claim
        changed = {w.rstrip(".") for w in m.claim.split()} - {
            w.rstrip(".") for w in PAIR.claim.split()
        }
        assert changed and not changed & evidence_words


@pytest.mark.parametrize(
    ("claim", "expected"),
    [
        ("The film was released in 1997.", "The film was not released in 1997."),
        ("Paris is the capital.", "Paris is not the capital."),
        ("He did not go.", None),
        ("Birds fly south.", None),
    ],
)
def test_negation(claim, expected):
    made = augment.negate(Pair(claim, "", "x", 1, "s"), random.Random(0))
    assert (made.claim if made else None) == expected
    if made:
        assert made.label == 0


def test_swapped_name_is_one_the_evidence_lacks():
    made = augment.swap_name(PAIR, ["Oscar Wilde", "Titanic"], random.Random(0))
    assert made is not None and "Oscar Wilde" in made.claim and made.label == 0


def test_added_detail_is_unsupported():
    made = augment.add_detail(PAIR, ["in 1843"], random.Random(0))
    assert made.claim == "Titanic won 11 Academy Awards in 1998 in 1843." and made.label == 0


def test_context_pairs_need_the_previous_sentence():
    pair = Pair("Titanic won 11 awards.", "", "Titanic won 11 awards.", 1, "s")
    right, wrong = augment.needs_context(pair, ["Avatar"], random.Random(0))
    assert right.claim == "It won 11 awards." and "Titanic" in right.context and right.label == 1
    assert "Avatar" in wrong.context and wrong.label == 0


def test_attribution_pairs_read_the_author():
    supported, unsupported = augment.attribution(PAIR, ["Reuters", "NASA"], random.Random(1))
    assert supported.evidence.startswith("author: ")
    author = supported.evidence.split("\n")[0].removeprefix("author: ")
    assert supported.claim.startswith(f"According to {author},") and supported.label == 1
    assert author not in unsupported.claim and unsupported.label == 0


def test_evidence_is_the_passages_that_share_words_with_the_claim():
    filler = " ".join(f"Sentence {i} is about gardening." for i in range(40))
    fact = Fact(filler + " The bridge opened in 1932.", {"author": "City archive"})
    example = Example("e", (fact,), "The bridge opened in 1932.", 1, "fib")
    evidence = select_evidence(example.claim, example)
    assert evidence.startswith("author: City archive\n")
    assert "The bridge opened in 1932." in evidence and len(evidence) < 200


def test_unsupported_multi_sentence_claims_stay_whole():
    fact = (Fact("A. B."),)
    negative = Example("n", fact, "Paris is big. Rome is old.", 0, "s")
    positive = Example("p", fact, "Paris is big. It is old.", 1, "s")
    assert [p.claim for p in example_pairs(negative)] == ["Paris is big. Rome is old."]
    made = example_pairs(positive)
    assert [p.claim for p in made] == ["Paris is big.", "It is old."]
    assert made[1].context == "Paris is big."


def test_sources_weigh_the_same_and_classes_balance():
    pairs = [Pair("c", "", "e", 1, "a")] * 10 + [Pair("c", "", "e", 0, "a")] * 30
    pairs += [Pair("c", "", "e", 1, "b")] * 5 + [Pair("c", "", "e", 0, "b")] * 5
    w = pair_weights(pairs)
    totals = {
        (s, y): w[[i for i, p in enumerate(pairs) if (p.source, p.label) == (s, y)]].sum()
        for s in "ab"
        for y in (0, 1)
    }
    assert len({round(v, 6) for v in totals.values()}) == 1


def test_batches_cover_every_pair_once():
    lengths = list(range(100))
    plan = batches(100, 16, lengths, seed=3)
    assert sorted(i for b in plan for i in b) == list(range(100))
    assert plan == batches(100, 16, lengths, seed=3)


def test_calibration_recovers_a_known_temperature():
    rng = np.random.default_rng(0)
    logits = rng.normal(0, 4, 4000)
    labels = (rng.random(4000) < 1 / (1 + np.exp(-logits / 2.0))).astype(float)
    temperature, bias = calibrate(logits, labels)
    assert 1.5 < temperature < 2.7 and abs(bias) < 1.0
