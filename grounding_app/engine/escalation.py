"""A second judge for the claims the engine's own is unsure of: a cascade.

The engine holds no network code. Its caller may pass `GroundingEngine.check` an
`Escalation` (the app's LLM judge, `grounding_app/llm_judge/`), which is shown each
claim whose local score lies in its band (and, if it takes them, every claim in a
language that only word matching reads), with the context the claim refers to and the
evidence windows the local judge read, and answers for each a `Ruling`, or none with
the reason the local verdict stands. Without one, verdicts are the engine's alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class Escalated:
    """One claim to judge again: as the local judge read it, with its score."""

    claim: str
    context: str  # the earlier sentences the claim refers to ("" when none)
    evidence: tuple[str, ...]  # the windows of its best evidence, in the facts' order
    score: float
    language: str


@dataclass(frozen=True)
class Ruling:
    supported: bool
    unsupported_words: tuple[str, ...] = ()
    supporting_passage: int | None = None  # index into `Escalated.evidence`


@dataclass(frozen=True)
class Outcome:
    """A ruling, or none and why not (`fell_back`): the local verdict then stands."""

    ruling: Ruling | None
    fell_back: str | None = None


class Escalation(Protocol):
    def wants(self, score: float) -> bool:
        """Whether a claim with this local score is judged again (the band)."""
        ...

    def takes_unread(self, language: str) -> bool:
        """Whether claims in this language, which no model of the engine reads (word
        matching scores them, uncalibrated), are all judged by it, whatever their score."""
        ...

    def judge(self, items: Sequence[Escalated]) -> list[Outcome]:
        """One outcome per item, in order; never raises for an endpoint's failure."""
        ...


@dataclass(frozen=True)
class Band:
    """The local scores judged again, both ends included; `everything` for all claims."""

    low: float = 0.0
    high: float = 1.0
    everything: bool = False

    def __contains__(self, score: float) -> bool:
        return self.everything or self.low <= score <= self.high

    @classmethod
    def parse(cls, text: str) -> Band:
        """'all', or 'LOW,HIGH' with 0 <= LOW <= HIGH <= 1."""
        if text.strip().lower() == "all":
            return cls(everything=True)
        parts = text.split(",")
        try:
            low, high = (float(part) for part in parts)
        except ValueError as exc:
            raise ValueError(f"a band is 'all' or 'LOW,HIGH', got {text!r}") from exc
        if not 0.0 <= low <= high <= 1.0:
            raise ValueError(f"a band needs 0 <= LOW <= HIGH <= 1, got {text!r}")
        return cls(low, high)
