from __future__ import annotations

import pytest

from grounding_app.metrics import (
    best_threshold,
    binary_report,
    expected_calibration_error,
    macro_balanced_accuracy,
    macro_best_threshold,
    paired_bootstrap,
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


@pytest.mark.parametrize(
    ("groups", "threshold", "expected"),
    [
        ([([0, 1], [0.2, 0.9])], 0.6, 1.0),
        ([([0, 1], [0.2, 0.9])], 0.95, 0.5),
        # two groups weigh the same whatever their size
        ([([0, 1], [0.2, 0.9]), ([0, 0, 0, 1], [0.7, 0.1, 0.1, 0.1])], 0.6, (1.0 + 1 / 3) / 2),
        # a one-class group is left out
        ([([0, 1], [0.2, 0.9]), ([1, 1], [0.1, 0.1])], 0.6, 1.0),
        ([([1], [0.1])], 0.6, 0.5),
    ],
)
def test_macro_balanced_accuracy(groups, threshold, expected):
    assert macro_balanced_accuracy(groups, threshold) == pytest.approx(expected)


def test_paired_bootstrap_sees_a_clear_gain_and_no_gain():
    labels = [[0] * 20 + [1] * 20, [0] * 10 + [1] * 30]
    old = [[0.7] * 20 + [0.3] * 20, [0.5] * 40]  # always wrong, then chance
    new = [[0.1] * 20 + [0.9] * 20, [0.1] * 10 + [0.9] * 30]  # always right
    gain = paired_bootstrap(labels, old, new, 0.6, rounds=200)
    assert gain.difference == pytest.approx(1.0 - 0.25)
    assert gain.low > 0.5 and gain.share_better == 1.0
    same = paired_bootstrap(labels, old, old, 0.6, rounds=50)
    assert (same.difference, same.low, same.high, same.share_better) == (0.0, 0.0, 0.0, 0.0)
    assert paired_bootstrap(labels, old, new, 0.6, rounds=200) == gain  # seeded


def test_paired_bootstrap_interval_is_wide_for_a_small_group():
    # one negative flips: 7 negatives move a group's balanced accuracy by 1/14 each
    labels = [[0] * 7 + [1] * 60]
    old = [[0.1] * 7 + [0.9] * 60]
    new = [[0.9] + [0.1] * 6 + [0.9] * 60]
    result = paired_bootstrap(labels, old, new, 0.6, rounds=400)
    assert result.difference == pytest.approx(-1 / 14)
    assert result.low < result.difference < result.high <= 0.0
