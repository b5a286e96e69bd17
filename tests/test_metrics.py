from __future__ import annotations

import pytest

from grounding_app.metrics import (
    best_threshold,
    binary_report,
    expected_calibration_error,
    macro_best_threshold,
    reliability_bins,
    roc_auc,
)


@pytest.mark.parametrize(
    ("labels", "scores", "expected"),
    [
        ([0, 1], [0.1, 0.9], 1.0),
        ([0, 1], [0.9, 0.1], 0.0),
        ([0, 1], [0.5, 0.5], 0.5),
        ([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], 0.75),
        ([1, 1], [0.2, 0.3], None),
    ],
)
def test_roc_auc(labels, scores, expected):
    assert roc_auc(labels, scores) == expected


def test_binary_report_counts_the_unsupported_class():
    labels = [1, 1, 0, 0, 0]
    predictions = [True, False, False, False, True]
    report = binary_report(labels, predictions, [0.9, 0.2, 0.1, 0.3, 0.7])
    assert report.n == 5
    assert report.balanced_accuracy == pytest.approx((1 / 2 + 2 / 3) / 2)
    assert report.unsupported_precision == pytest.approx(2 / 3)
    assert report.unsupported_recall == pytest.approx(2 / 3)


def test_best_threshold_separates_when_possible():
    threshold, accuracy = best_threshold([0, 0, 1, 1], [0.1, 0.2, 0.7, 0.9])
    assert accuracy == 1.0 and 0.2 < threshold <= 0.7
    assert best_threshold([1, 1], [0.3, 0.4]) == (0.5, 0.5)


@pytest.mark.parametrize(
    ("groups", "expected_t", "expected_accuracy"),
    [
        # one group, separable between 0.2 and 0.7: the middle of the plateau
        ([([0, 0, 1, 1], [0.1, 0.2, 0.7, 0.9])], 0.4525, 1.0),
        # two groups whose own optima differ: both are right for 0.35 < t <= 0.4
        ([([0, 1], [0.2, 0.4]), ([0, 1], [0.35, 0.5])], 0.3775, 1.0),
        # a one-class group is left out, not counted as perfect
        ([([0, 1], [0.2, 0.4]), ([1, 1], [0.0, 0.0])], 0.3025, 1.0),
        # nothing to separate
        ([([1, 1], [0.3, 0.4])], 0.5, 0.5),
        # one mistake at best, on two plateaus: the first one's middle
        ([([0, 1, 0, 1], [0.3, 0.6, 0.65, 0.8])], 0.4525, 0.75),
    ],
)
def test_macro_best_threshold(groups, expected_t, expected_accuracy):
    t, accuracy = macro_best_threshold(groups)
    assert t == pytest.approx(expected_t, abs=1e-9)
    assert accuracy == pytest.approx(expected_accuracy)


def test_reliability_bins_and_ece():
    labels = [0, 0, 1, 1, 1]
    scores = [0.05, 0.15, 0.85, 0.95, 0.95]
    bins = reliability_bins(labels, scores, n_bins=10)
    assert [b.count for b in bins] == [1, 1, 0, 0, 0, 0, 0, 0, 1, 2]
    assert bins[9].supported_rate == 1.0 and bins[9].mean_score == pytest.approx(0.95)
    ece = expected_calibration_error(labels, scores)
    assert ece == pytest.approx((0.05 + 0.15 + 0.15 + 0.05 * 2) / 5)
    assert expected_calibration_error([1], [1.0]) == 0.0
