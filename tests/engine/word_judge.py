"""A judge for tests of what the pipeline shows a judge: it records each evidence text and
supports a claim exactly when every one of its words is in the evidence."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


class WordJudge:
    def __init__(self) -> None:
        self.evidence: list[str] = []

    def score(self, pairs: Sequence[Any], encoder: Any = None) -> list[float]:
        self.evidence.extend(evidence.text for _, evidence in pairs)
        return [
            float(
                set(claim.claim.lower().rstrip(".").split())
                <= set(evidence.text.lower().replace(".", " ").split())
            )
            for claim, evidence in pairs
        ]
