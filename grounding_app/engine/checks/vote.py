"""A vote called unanimous that the evidence gives as split.

The verifier reads "The council unanimously approved the plan." against "The council
approved the plan by a 7-2 vote." at 0.5-0.7: every word but one is there, and it does not
weigh "unanimously" against a tally. A claim of unanimity (the profile's `unanimity`,
not negated) is contradicted by an evidence sentence that reports a vote with a
minority: a tally whose second count is above zero ("7-2", "5 to 4"; the profile's
`tally`: two counts of at most three digits, the larger first, no year range
"2019-2020"), or members voting against.
"""

from __future__ import annotations

import itertools

from grounding_app.engine.checks import CONTRADICTION, Check, Reading
from grounding_app.engine.lang import Profile, profile
from grounding_app.engine.lexical import has_negation, sentences, words


def _claims_unanimity(claim: str, words_of: Profile) -> bool:
    lowered = [w.lower() for w in words(claim)]
    pairs = {f"{a} {b}" for a, b in itertools.pairwise(lowered)}
    claimed = words_of.unanimity & set(lowered) or words_of.unanimity_phrases & pairs
    return bool(claimed) and not has_negation(claim)


def _split_vote(sentence: str, words_of: Profile) -> bool:
    """Whether a sentence reports a vote some voted against."""
    lowered = {w.lower() for w in words(sentence)}
    if not lowered & words_of.vote_words:
        return False
    if lowered & words_of.dissent_words:
        return True
    return any(int(a) >= int(b) > 0 for a, b in words_of.tally.findall(sentence))


def calls_split_vote_unanimous(claim: str, evidence: tuple[str, ...], language: str) -> bool:
    """Whether the claim calls a vote unanimous that an evidence sentence gives as split."""
    words_of = profile(language)
    if not _claims_unanimity(claim, words_of):
        return False
    return any(_split_vote(s, words_of) for passage in evidence for s in sentences(passage))


def _fires(reading: Reading) -> bool:
    return calls_split_vote_unanimous(reading.claim, reading.passages, reading.language)


SEVEN_TWO = "The council approved the plan by a 7\u20132 vote on Tuesday."
CHECK = Check(
    "vote",
    CONTRADICTION,
    _fires,
    {
        "en": (
            ("The council unanimously approved the plan.", (SEVEN_TWO,), True),
            ("The budget passed unanimously.", ("The budget passed 5 to 4.",), True),
            ("The vote was unanimous.", ("The board voted 6-1 to close the school.",), True),
            (
                "All members voted for the plan.",
                ("The plan was approved. Two members voted against it.",),
                True,
            ),
            # no unanimity claimed, or none denied
            ("The council approved the plan 7\u20132.", (SEVEN_TWO,), False),
            ("The council did not unanimously approve the plan.", (SEVEN_TWO,), False),
            (
                "The council unanimously approved the plan.",
                ("The council approved the plan by a 9-0 vote.",),
                False,
            ),
            (
                "The council unanimously approved the plan.",
                ("The council voted unanimously to approve the plan.",),
                False,
            ),
            # a tally that is no vote, a range of years
            ("The jury was unanimous.", ("The home team won 3-1 on Sunday.",), False),
            (
                "The council unanimously adopted the budget.",
                ("The council adopted the 2024-2025 budget.",),
                False,
            ),
        ),
    },
)
