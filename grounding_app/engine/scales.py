"""A scope's own scale: the verifier ranks claims well within one source, but where a
score of 0.6 falls differs from source to source. A `Scale`, fitted from one scope's
labels (a grounding config, a trace source, a batch label), maps the engine's score for
that scope onto the scale the citation threshold cuts.

Each map is monotone, Platt's `sigmoid(slope * logit(p) + offset)` with a positive
slope, one per judge that scored the claim (the verifier's scores and word matching's
lie on different scales). Ranking within a scope never changes; only where its scores
fall against the threshold does. The engine applies a request's scale to the claims its
own judges scored, before any escalation, so an LLM judge's band and the threshold
both read the scope's scale.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

# Scores are clipped this far inside (0, 1) before their logit: word matching gives 0.
_EPSILON = 1e-6


def logit(p: float) -> float:
    p = min(max(p, _EPSILON), 1 - _EPSILON)
    return math.log(p / (1 - p))


def sigmoid(z: float) -> float:
    if z >= 0:
        return 1 / (1 + math.exp(-z))
    e = math.exp(z)
    return e / (1 + e)


@dataclass(frozen=True)
class Platt:
    """`sigmoid(slope * logit(p) + offset)`; slope 1 and offset 0 leave a score as is."""

    slope: float = 1.0
    offset: float = 0.0

    def __post_init__(self) -> None:
        if not (self.slope > 0 and math.isfinite(self.slope) and math.isfinite(self.offset)):
            raise ValueError(f"a monotone map needs a finite positive slope, got {self}")

    def __call__(self, score: float) -> float:
        return sigmoid(self.slope * logit(score) + self.offset)

    def inverse(self, score: float) -> float:
        """The score this map turned into `score`."""
        return sigmoid((logit(score) - self.offset) / self.slope)


@dataclass(frozen=True)
class Scale:
    """The maps of one scope, by the judge that scored a claim (`CHECKED_BY`); `name`
    is what a response names for each claim it scored."""

    name: str
    maps: Mapping[str, Platt] = field(default_factory=dict)

    def apply(self, score: float, checked_by: str | None) -> float | None:
        """The score on this scale, or None where no map is fitted for its judge."""
        found = self.maps.get(checked_by or "")
        return None if found is None else found(score)
