"""Fitting and guarding a scope's scale, on simulated labels: a scope whose scale is
shifted gains; one class, too few labels, labels ranked against the scores and a scope
already cut right are refused, each with its reason."""

from __future__ import annotations

import math

import numpy as np
import pytest

from grounding_app.calibration.fit import (
    MIN_LABELS,
    fit_platt,
    held_back_scores,
    propose,
)
from grounding_app.engine import Platt, Scale
from grounding_app.metrics import balanced_accuracy_at


def scope(n: int, shift: float, seed: int = 0, separation: float = 2.0):
    """Labels and scores of a scope whose scores sit `shift` (in logits) off the cut at
    0.6 that separates its classes best."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 2, n)
    z = rng.normal(0.0, 1.0, n) + separation * (labels - 0.5) + math.log(0.6 / 0.4) + shift
    return [float(1 / (1 + math.exp(-v))) for v in z], [int(y) for y in labels]


@pytest.mark.parametrize("shift", [-1.5, 1.5])
def test_a_shifted_scope_gains_and_passes_the_guard(shift):
    scores, labels = scope(200, shift)
    found = propose(scores, labels)
    assert found.usable, found.refused
    assert found.ba_after > found.ba_before + 0.05
    assert found.gain_low > 0
    # Fitted on all labels, the map moves the scores back across the cut.
    mapped = [found.platt(s) for s in scores]
    assert balanced_accuracy_at(labels, mapped, 0.6) > found.ba_before + 0.05


def test_a_scope_cut_right_is_not_calibrated():
    for seed in range(5):
        scores, labels = scope(200, 0.0, seed)
        found = propose(scores, labels)
        assert not found.usable
        assert "does not lie above zero" in found.refused


def test_a_worse_candidate_is_never_usable():
    """Labels the scores already cut perfectly at 0.6: nothing can be better."""
    scores, _ = scope(120, 0.0)
    labels = [int(s >= 0.6) for s in scores]
    found = propose(scores, labels)
    assert found.ba_before == 1.0
    assert not found.usable


@pytest.mark.parametrize(
    ("labels", "says"),
    [
        ([1] * 60, "all 60 labels are supported"),
        ([0] * 60, "all 60 labels are unsupported"),
        ([1, 0] * 10, f"at least {MIN_LABELS}"),
        ([1] * 55 + [0] * 5, "8 of each class"),
    ],
)
def test_one_class_or_too_few_labels_are_refused_with_why(labels, says):
    scores = [0.3 + 0.4 * (i % 7) / 7 for i in range(len(labels))]
    found = propose(scores, labels)
    assert not found.usable and found.platt is None
    assert says in found.refused


def test_labels_ranked_against_the_scores_get_no_map():
    scores, labels = scope(100, 0.0)
    found = propose(scores, [1 - y for y in labels])
    assert not found.usable
    assert "wrong way round" in found.refused


def test_few_labels_move_the_map_little():
    """The prior (today's scale, as anchors) holds a small scope near the identity;
    many labels pull it where they point."""
    small = fit_platt(*scope(30, -2.0))
    large = fit_platt(*scope(1000, -2.0))
    assert small is not None and large is not None
    moved = large(0.5) - 0.5
    assert 0 < small(0.5) - 0.5 < moved


def test_held_back_scores_come_from_maps_fitted_without_them():
    scores, labels = scope(100, -1.0)
    held = held_back_scores(scores, labels)
    fitted = fit_platt(scores, labels)
    assert held is not None and fitted is not None
    assert held != [fitted(s) for s in scores]
    assert balanced_accuracy_at(labels, held, 0.6) > balanced_accuracy_at(labels, scores, 0.6)


def test_labels_to_settle_grows_as_the_gain_shrinks():
    scores, labels = scope(40, -0.6, seed=3)
    found = propose(scores, labels)
    if found.usable:
        assert found.labels_to_settle() is None
    elif found.ba_after is not None and found.ba_after > found.ba_before:
        assert found.labels_to_settle() >= 1


@pytest.mark.parametrize(
    ("platt", "score", "expected"),
    [
        (Platt(), 0.6, 0.6),
        (Platt(), 0.0, 1e-6),
        (Platt(1.0, math.log(0.6 / 0.4)), 0.5, 0.6),
        (Platt(2.0, 0.0), 0.5, 0.5),
        (Platt(2.0, 0.0), 0.6, 0.36 / 0.52),
    ],
)
def test_platt_maps(platt, score, expected):
    assert platt(score) == pytest.approx(expected, rel=1e-6)


@pytest.mark.parametrize("bad", [(0.0, 0.0), (-1.0, 0.0), (math.inf, 0.0), (1.0, math.nan)])
def test_a_map_must_be_monotone_and_finite(bad):
    with pytest.raises(ValueError, match="monotone"):
        Platt(*bad)


def test_a_scale_maps_only_the_judges_it_was_fitted_for():
    scale = Scale("groundingConfigs/a/calibrations/1", {"verifier": Platt(1.0, 1.0)})
    assert scale.apply(0.5, "verifier") == pytest.approx(1 / (1 + math.exp(-1)))
    assert scale.apply(0.5, "word_matching") is None
    assert scale.apply(0.5, None) is None
