"""A hedge the evidence keeps and the claim drops (`hedges.drops_hedge`)."""

from __future__ import annotations

from grounding_app.engine.checks import HEDGE, Check, Reading
from grounding_app.engine.hedges import drops_hedge


def _fires(reading: Reading) -> bool:
    return drops_hedge(reading.claim, reading.passages)


CHECK = Check(
    "hedge",
    HEDGE,
    frozenset({"en"}),
    _fires,
    (
        (
            "The drug cures the disease.",
            ("Early studies suggest the drug may cure the disease.",),
            True,
        ),
        (
            "The drug may cure the disease.",
            ("Early studies suggest the drug may cure the disease.",),
            False,
        ),
        ("The drug cures the disease.", ("The drug cures the disease.",), False),
    ),
)
