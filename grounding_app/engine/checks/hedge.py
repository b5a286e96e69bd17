"""A hedge the evidence keeps and the claim drops (`hedges.drops_hedge`)."""

from __future__ import annotations

from grounding_app.engine.checks import HEDGE, Check, Reading
from grounding_app.engine.hedges import drops_hedge


def _fires(reading: Reading) -> bool:
    return drops_hedge(reading.claim, reading.passages, reading.language)


CHECK = Check(
    "hedge",
    HEDGE,
    _fires,
    {
        "en": (
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
        "he": (
            ("השריפה נגרמה מתנור פגום.", ("השריפה נגרמה כנראה מתנור פגום.",), True),
            ("השריפה נגרמה כנראה מתנור פגום.", ("השריפה נגרמה כנראה מתנור פגום.",), False),
            ("השריפה נגרמה מתנור פגום.", ("השריפה נגרמה מתנור פגום.",), False),
            ("ראש העיר התפטר.", ("לכאורה ראש העיר התפטר מתפקידו אתמול.",), False),
            ("ראש העיר התפטר מתפקידו.", ("ראש העיר לכאורה התפטר מתפקידו אתמול.",), True),
        ),
    },
)
