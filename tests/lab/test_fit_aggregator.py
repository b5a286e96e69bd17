"""The aggregator fitted around the verifier: its weight stays 1, the rest is learnt."""

from __future__ import annotations

import numpy as np

from grounding_app.engine import AGGREGATE_FEATURES
from grounding_app.lab.fit_aggregator import _fit_around_verifier


def test_the_verifier_keeps_its_weight_and_a_check_gets_its_penalty():
    rng = np.random.default_rng(0)
    n = 20_000
    x = np.zeros((n, len(AGGREGATE_FEATURES)))
    x[:, AGGREGATE_FEATURES.index("verifier")] = rng.normal(0.0, 2.0, n)
    contradiction = AGGREGATE_FEATURES.index("contradiction")
    x[:, contradiction] = rng.random(n) < 0.3
    # The truth: the verifier's logit, four logits off when the check fires.
    z = x[:, AGGREGATE_FEATURES.index("verifier")] - 4.0 * x[:, contradiction]
    labels = (rng.random(n) < 1 / (1 + np.exp(-z))).astype(int)
    weights, bias = _fit_around_verifier(x, labels, c=100.0)
    assert weights[AGGREGATE_FEATURES.index("verifier")] == 1.0
    assert abs(weights[contradiction] + 4.0) < 0.4
    others = [w for i, w in enumerate(weights) if i not in (0, contradiction)]
    assert max(abs(w) for w in others) < 0.2
    # Balancing the classes moves the truth's bias of 0 by the log of their ratio.
    shift = np.log((n - labels.sum()) / labels.sum())
    assert abs(bias - shift) < 0.15
