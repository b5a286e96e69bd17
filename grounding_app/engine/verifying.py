"""The verifier as a judge: the steps between a claim's evidence and its probability.

The cross-encoder (`verifier/model.py`) only turns (claim, evidence) texts into logits,
as sentence-transformers' `CrossEncoder.predict` does. Around it, in order: each claim's
evidence is cut into windows of whole passages that fit beside it (`evidence.windows`);
each (claim, window) pair is read once per request (`read_once`, through the request's
memo: a later option, or another claim, may show the same window); each logit is
calibrated (`VerifierConfig.calibrate`); the claim's best window counts, less the
missing-name penalty (`name_penalty`), as a probability (`probabilities`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from grounding_app.engine.encoders import MemoEncoder
from grounding_app.engine.evidence import windows
from grounding_app.engine.judges import ClaimInContext, Evidence
from grounding_app.engine.lexical import compare
from grounding_app.engine.types import Penalties
from grounding_app.engine.verifier.model import CrossEncoderJudge, claim_text

Pair = tuple[str, str]  # (what the model reads of the claim, one window of evidence)


def read_once(
    model: CrossEncoderJudge, inputs: Sequence[Pair], memo: MemoEncoder | None
) -> dict[Pair, float]:
    """The model's logit of each input, each distinct one run once and kept in the
    request's memo (`MemoEncoder.pair_logits`) for the request's later readings."""
    read = memo.pair_logits if memo is not None else {}
    known = {pair: read[pair] for pair in inputs if pair in read}
    todo = [pair for pair in dict.fromkeys(inputs) if pair not in known]
    if todo:
        fresh = model.logits([c for c, _ in todo], [t for _, t in todo])
        known.update(zip(todo, (float(x) for x in fresh), strict=True))
        read.update((pair, known[pair]) for pair in todo)
    return known


def name_penalty(
    pairs: Sequence[tuple[ClaimInContext, Evidence]], penalties: Penalties
) -> np.ndarray:
    """Per pair, the logits taken off for the claim's names the evidence lacks (at most
    three): the verifier reads a name swapped for another as nearly the same sentence."""
    return np.array(
        [
            penalties.missing_name * min(compare(claim.claim, evidence.text).missing_names, 3)
            for claim, evidence in pairs
        ],
        dtype=np.float64,
    )


def probabilities(logits: np.ndarray) -> list[float]:
    """Sigmoid of each logit; a claim without any window read is 0."""
    return [float(1.0 / (1.0 + np.exp(-x))) if np.isfinite(x) else 0.0 for x in logits]


class VerifierJudge:
    """Implements `Judge` with a cross-encoder, through the steps above."""

    def __init__(self, model: CrossEncoderJudge) -> None:
        self.model = model
        self.config = model.config
        self.verifier_id = model.verifier_id

    def score(
        self, pairs: Sequence[tuple[ClaimInContext, Evidence]], encoder: MemoEncoder | None = None
    ) -> list[float]:
        inputs: list[Pair] = []
        owner: list[int] = []
        for index, (claim, evidence) in enumerate(pairs):
            first = claim_text(claim)
            for window in windows(evidence, self.model.token_count, self.model.window_room):
                inputs.append((first, window))
                owner.append(index)
        logits = read_once(self.model, inputs, encoder)
        best = np.full(len(pairs), -np.inf)
        for index, pair in zip(owner, inputs, strict=True):
            best[index] = max(best[index], self.config.calibrate(logits[pair]))
        return probabilities(best - name_penalty(pairs, self.config.penalties))
