"""Judges: how likely is a claim, read in its context, supported by some evidence?

A judge is the replaceable part of the engine. It scores batches of
(claim in context, evidence) pairs with probabilities; the engine decides what evidence
to show it and what to cite. `FeatureJudge` is the zero-shot default: sentence-embedding
similarity plus lexical checks (numbers, names, negation, word coverage) combined by a
logistic model fitted on the training data (`fit_feature_judge`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import numpy as np

from grounding_app.engine.encoders import Encoder, MemoEncoder
from grounding_app.engine.lexical import compare

FEATURE_JUDGE_WEIGHTS = Path(__file__).with_name("data") / "feature_judge.json"


@dataclass(frozen=True)
class ClaimInContext:
    claim: str
    context: str = ""  # the answer's preceding sentences, for pronouns and ellipsis


@dataclass(frozen=True)
class Evidence:
    passages: tuple[str, ...]  # in document order
    attributes: dict[str, str] = field(default_factory=dict)

    @property
    def text(self) -> str:
        """The evidence as one string, attributes first, as a cross-encoder reads it."""
        head = "".join(f"{key}: {value}\n" for key, value in self.attributes.items())
        return head + " ".join(self.passages)


class Judge(Protocol):
    def score(
        self, pairs: Sequence[tuple[ClaimInContext, Evidence]], encoder: MemoEncoder | None = None
    ) -> list[float]:
        """Probabilities that each claim is supported by its evidence.

        `encoder` is the request's memo, so passages the engine embedded for retrieval
        are not embedded twice, nor a (claim, window) pair read twice; judges that
        neither embed nor read pairs ignore it.
        """
        ...


FEATURE_NAMES = (
    "cos_claim",
    "cos_in_context",
    "coverage",
    "full_coverage",
    "has_missing_number",
    "missing_names",
    "negation_mismatch",
    "log_content_words",
)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(x, -40, 40)))


class FeatureJudge:
    """Logistic model over embedding similarity and lexical checks."""

    def __init__(self, encoder: Encoder, weights: Sequence[float], bias: float) -> None:
        if len(weights) != len(FEATURE_NAMES):
            raise ValueError(f"expected {len(FEATURE_NAMES)} weights, got {len(weights)}")
        self.encoder = encoder
        self.weights = np.asarray(weights, dtype=np.float64)
        self.bias = float(bias)

    @classmethod
    def from_file(cls, encoder: Encoder, path: Path = FEATURE_JUDGE_WEIGHTS) -> FeatureJudge:
        if not path.is_file():
            raise RuntimeError(f"feature judge weights missing: {path}")
        data = json.loads(path.read_text())
        if tuple(data["features"]) != FEATURE_NAMES:
            raise RuntimeError(f"{path} was fitted for other features: {data['features']}")
        return cls(encoder, data["weights"], data["bias"])

    def features(
        self, pairs: Sequence[tuple[ClaimInContext, Evidence]], encoder: Encoder | None = None
    ) -> np.ndarray:
        encoder = encoder or self.encoder
        out = np.zeros((len(pairs), len(FEATURE_NAMES)), dtype=np.float64)
        if not pairs:
            return out
        claims = [c.claim for c, _ in pairs]
        in_context = [f"{c.context} {c.claim}".strip() for c, _ in pairs]
        passages = [p for _, ev in pairs for p in ev.passages]
        vectors = encoder.encode(claims + in_context + passages)
        n = len(pairs)
        claim_vecs, ctx_vecs, passage_vecs = vectors[:n], vectors[n : 2 * n], vectors[2 * n :]
        offset = 0
        for row, (claim, evidence) in enumerate(pairs):
            count = len(evidence.passages)
            if count:
                block = passage_vecs[offset : offset + count]
                out[row, 0] = float(np.max(block @ claim_vecs[row]))
                out[row, 1] = float(np.max(block @ ctx_vecs[row]))
            offset += count
            lex = compare(claim.claim, evidence.text)
            out[row, 2] = lex.coverage
            out[row, 3] = float(lex.coverage >= 0.999)
            out[row, 4] = float(lex.missing_numbers > 0)
            out[row, 5] = min(lex.missing_names, 3)
            out[row, 6] = float(lex.negation_mismatch)
            out[row, 7] = math.log1p(lex.claim_content_words)
        return out

    def score(
        self, pairs: Sequence[tuple[ClaimInContext, Evidence]], encoder: Encoder | None = None
    ) -> list[float]:
        x = self.features(pairs, encoder)
        return [float(p) for p in _sigmoid(x @ self.weights + self.bias)]
