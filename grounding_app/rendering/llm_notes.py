"""The LLM judge on the pages, said in words: which claims it decided, and where it fell back.

A claim the LLM judge decided (`checked_by == LLM_JUDGE`) has an external model's
verdict, not the local one; a claim it was asked about and did not decide keeps the
local verdict, and the engine stores why ("fell back: timeout"). A page says both in
text wherever the verdict is shown (never colour alone): a short mark, a sentence in its
title and for screen readers, and one summary line per candidate.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from grounding_app import engine

MARK = "LLM judge"  # the visible mark of a decided claim
# The visible mark of a claim it did not decide: short, since in the answer it is glued
# to the claim's end with its flag and score and must fit a phone's line with them.
FELL_BACK_MARK = "LLM fell back"
DECIDED = "Verdict decided by the LLM judge, an external model, not the local one"

_PREFIX = "fell back:"
_LOCAL = {
    engine.VERIFIER: "verifier",
    engine.FEATURE_JUDGE: "feature judge",
    engine.WORD_MATCHING: "word-matching judge",  # a claim in a language no model reads
}


def fallback_reason(stored: str | None) -> str:
    """The reason of a stored note, as a page words it ("fell back: http 429" -> "HTTP
    429"); "" for no note. A note of another form is shown whole, never dropped."""
    if not stored:
        return ""
    reason = stored.removeprefix(_PREFIX).strip() if stored.startswith(_PREFIX) else stored
    if reason.startswith("http "):
        reason = "HTTP" + reason[4:]
    return reason or "no reason given"


def local_name(checked_by: Sequence[str | None]) -> str:
    """Whose verdict stands: "verifier", "feature judge" or "word-matching judge" when
    all fallen-back claims name the same one, else "local judge"."""
    found = {_LOCAL.get(kind or "", "local judge") for kind in checked_by}
    return found.pop() if len(found) == 1 else "local judge"


def fallback_note(reason: str, checked_by: str | None) -> str:
    """One claim's sentence: "LLM judge fell back (timeout): the verifier's verdict stands"."""
    return f"LLM judge fell back ({reason}): the {local_name([checked_by])}'s verdict stands"


def _claims(n: int) -> str:
    return f"{n} claim" if n == 1 else f"{n} claims"


def _reasons(reasons: Sequence[str]) -> str:
    """ "timeout", or "timeout: 2, HTTP 429: 1" when they differ (most first)."""
    counts = sorted(Counter(reasons).items(), key=lambda item: (-item[1], item[0]))
    if len(counts) == 1:
        return counts[0][0]
    return ", ".join(f"{reason} on {n}" for reason, n in counts)


def summary(decided: int, fell_back: Sequence[tuple[str, str | None]]) -> str:
    """One line for a candidate: "3 claims decided by the LLM judge; 1 fell back
    (timeout): the verifier's verdict stands"; "" when the judge was asked about none.
    `fell_back` is (reason, checked_by) per claim it did not decide."""
    m = len(fell_back)
    if not decided and not m:
        return ""
    head = f"{_claims(decided)} decided by the LLM judge" if decided else ""
    if not m:
        return head
    whose = local_name([kind for _, kind in fell_back])
    stands = f"the {whose}'s verdict stands" if m == 1 else f"the {whose}'s verdicts stand"
    reasons = _reasons([reason for reason, _ in fell_back])
    if head:
        return f"{head}; {m} fell back ({reasons}): {stands}"
    return f"The LLM judge fell back on {_claims(m)} ({reasons}): {stands}"
