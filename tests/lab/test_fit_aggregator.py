"""The aggregator fitted around the verifier: its weight stays 1, the rest is learnt."""

from __future__ import annotations

import numpy as np

from grounding_app.engine import AGGREGATE_FEATURES
from grounding_lab.fit_aggregator import _fit_around_verifier, _runs_options, _source_weights


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


def test_each_source_and_label_weighs_the_same_in_total():
    rows = [{"source": "a", "label": 1}] * 6 + [{"source": "a", "label": 0}] * 2
    rows += [{"source": "b", "label": 1}, {"source": "b", "label": 0}]
    w = _source_weights(rows)
    totals = {}
    for row, weight in zip(rows, w, strict=True):
        key = (row["source"], row["label"])
        totals[key] = totals.get(key, 0.0) + weight
    assert len(set(np.round(list(totals.values()), 9))) == 1
    assert np.isclose(w.sum(), len(rows))


def test_run_options_take_their_check_flags_from_the_checks_on_for_the_claims_language():
    contradiction = AGGREGATE_FEATURES.index("contradiction")
    hedge = AGGREGATE_FEATURES.index("hedge")
    x = [0.5] * len(AGGREGATE_FEATURES)
    run = {
        "claims": [
            {"language": "en", "options": [{"x": x, "checks": ["substitution", "hedge"]}]},
        ]
    }
    kinds = {"substitution": "contradiction", "hedge": "hedge"}
    (claim,) = _runs_options(run, {"substitution": ["en"], "hedge": ["he"]}, kinds)
    assert claim[0, contradiction] == 1.0 and claim[0, hedge] == 0.0
    assert claim[0, AGGREGATE_FEATURES.index("verifier")] == 0.5
    (claim,) = _runs_options(run, {}, kinds)
    assert claim[0, contradiction] == claim[0, hedge] == 0.0
