"""One fitted score from the judges and the checks, in place of hand-set penalties.

Each evidence option a claim is read against yields the verifier's logit, the zero-shot
feature judge's logit, the word-matching judge's logit, which kinds of check fired
(contradiction, role, hedge) and what the verifier's own penalties count (a number the
evidence lacks, names it lacks: the verifier's logit has them subtracted already, so
their weights here adjust those penalties). A logistic model over them
(`grounding_lab/fit_aggregator.py`, fitted on `train.jsonl`, its bias set on
`dev_realistic`'s select half so that the default threshold is the macro optimum) gives
the option's probability of support. Without
a fitted file the engine keeps the verifier's score with the checks' fixed penalties.
None ships: the fit on fit_unseen's fit half (`fit_aggregator fit-runs`) wins on its
report half but lowers dev_realistic's (docs/checks.md has the figures).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

AGGREGATOR_WEIGHTS = Path(__file__).with_name("data") / "aggregator.json"

FEATURES = (
    "verifier",
    "feature_judge",
    "word_match",
    "contradiction",
    "role",
    "hedge",
    "missing_number",
    "missing_names",
)


@dataclass(frozen=True)
class Aggregator:
    weights: tuple[float, ...]
    bias: float

    @classmethod
    def from_file(cls, path: Path = AGGREGATOR_WEIGHTS) -> Aggregator:
        data = json.loads(path.read_text())
        if tuple(data["features"]) != FEATURES:
            raise RuntimeError(f"{path} was fitted for other features: {data['features']}")
        return cls(tuple(float(w) for w in data["weights"]), float(data["bias"]))

    def score(self, features: Sequence[float]) -> float:
        z = self.bias + sum(w * x for w, x in zip(self.weights, features, strict=True))
        return 1.0 / (1.0 + math.exp(-max(-40.0, min(40.0, z))))
