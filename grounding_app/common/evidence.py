"""The passage of the facts each checked claim is shown with, stored when it is saved.

A claim's card shows the passages it cites. Two claims need one more: an unsupported
claim cites nothing, so it gets the passage its "not in the evidence" words were
measured against (`engine.best_passage`); and a claim whose numbers no cited passage
states (a table row citing "Lagos is the largest city in Nigeria." for its "15 million")
gets the passage of a cited fact that states most of them. The engine's response names
neither the passage its judge read for an unsupported claim nor why a row cites what it
cites, so these are found here, from the request's facts, once, when the review is saved.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Literal

from grounding_app.engine import Fact, best_passage, numbers, split_fact
from grounding_app.formats.grounded import (
    Candidate,
    FactPassage,
    GroundedAnswer,
    Segment,
)


def _fact_passage(
    facts: Sequence[Fact], index: int, text: str, reason: Literal["closest", "numbers"]
) -> FactPassage:
    return FactPassage(text, index, reason, facts[index].attributes.get("title", ""))


def _numbers_passage(
    candidate: Candidate, segment: Segment, facts: Sequence[Fact]
) -> FactPassage | None:
    """The passage of a cited fact stating most of the claim's numbers that no cited
    passage states; None when the cited passages state them all or no passage does."""
    cited = [candidate.sources[i] for i in segment.source_indices if i < len(candidate.sources)]
    stated: set[str] = set()
    for source in cited:
        stated |= numbers(source.text)
    missing = numbers(segment.text) - stated
    cited_facts = dict.fromkeys(
        s.fact_index for s in cited if s.fact_index is not None and s.fact_index < len(facts)
    )
    if not missing or not cited_facts:
        return None
    best, best_found = None, 0
    for index in cited_facts:
        for passage in split_fact(index, facts[index].text):
            found = len(missing & numbers(passage.text))
            if found > best_found:
                best, best_found = (index, passage.text), found
    return None if best is None else _fact_passage(facts, *best, "numbers")


def _evidence(candidate: Candidate, segment: Segment, facts: Sequence[Fact]) -> FactPassage | None:
    if segment.verdict == "unsupported" and not segment.source_indices:
        found = best_passage(segment.text, [f.text for f in facts])
        return None if found is None else _fact_passage(facts, *found, "closest")
    if segment.source_indices:
        return _numbers_passage(candidate, segment, facts)
    return None


def with_evidence(grounded: GroundedAnswer, facts: Sequence[Fact]) -> GroundedAnswer:
    """`grounded` with each claim's extra passage of `facts` (`FactPassage`), where it
    needs one; unchanged without facts (an imported Gemini or agent answer)."""
    if not facts:
        return grounded
    return replace(
        grounded,
        candidates=tuple(
            replace(
                c,
                segments=tuple(replace(s, evidence=_evidence(c, s, facts)) for s in c.segments),
            )
            for c in grounded.candidates
        ),
    )
