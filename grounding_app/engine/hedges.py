"""A hedge the evidence keeps and the claim drops.

"The fire was caused by a faulty heater." is more than "the fire was probably caused by a
faulty heater" says: the SPEC counts a partly true claim as unsupported, and a reviewer
would call the certainty made up. The verifier reads both sentences as the same
statement (they share every content word), so the engine finds the sentence that states
the claim and looks for a hedge in it that the claim lacks. Words are read through the
claim language's profile: its words, each content word's forms (an English stem; a
Hebrew word with and without its prefixes) and its hedges ("הסרט כנראה זכה" against
"הסרט זכה").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from grounding_app.engine.lang import Profile, profile
from grounding_app.engine.lang.sentences import sentences

# A quotation is a source's own words, which a claim may report in its own ("criticised").
_QUOTED = re.compile(r"\"[^\"]*\"|\u201c[^\u201d]*\u201d")


def _overlap(wanted: set[frozenset[str]], text: list[frozenset[str]]) -> int:
    held = set().union(*text) if text else set()
    return sum(1 for forms in wanted if forms & held)


def _hedged(sentence: str, wanted: set[frozenset[str]], reader: Profile, reach: int = 4) -> bool:
    """A hedge inside what the sentence says of the claim: with the claim's words on both
    sides of it, within `reach` words ("the drug may slow memory loss"), not in a clause
    of its own ("may have left him tired after he was substituted")."""
    tokens = reader.written_words(_QUOTED.sub(" ", sentence))
    for i, word in enumerate(tokens):
        if not reader.is_hedge(word):
            continue
        before = reader.content_forms(" ".join(tokens[max(0, i - reach) : i]))
        after = reader.content_forms(" ".join(tokens[i + 1 : i + 1 + reach]))
        if _overlap(wanted, before) and _overlap(wanted, after):
            return True
    return False


def drops_hedge(
    claim: str, evidence: Sequence[str], language: str = "en", share: float = 0.75
) -> bool:
    """Whether every evidence sentence stating the claim hedges it and the claim does not.

    A sentence states the claim when it holds at least `share` of the claim's content
    words and no other sentence holds more.
    """
    reader = profile(language)
    if any(reader.is_hedge(w) for w in reader.written_words(claim)):
        return False
    wanted = set(reader.content_forms(claim))
    if len(wanted) < 2:
        return False
    stated = [s for passage in evidence for s in sentences(passage)]
    covered = [_overlap(wanted, reader.content_forms(s)) for s in stated]
    best = max(covered, default=0)
    if best < share * len(wanted):
        return False
    return all(
        _hedged(s, wanted, reader) for s, n in zip(stated, covered, strict=True) if n == best
    )
