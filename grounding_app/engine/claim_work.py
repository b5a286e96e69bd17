"""One claim's record on its way through a check, and what the judge reads of it.

Claims keep their exact spans, but the judge reads them and the evidence normalised
(`_readable`): without citation markers ("[1]", "【3†source】") and HTML tags, which
are no part of what is claimed, and with numbers that have several spellings in one
("twenty-one" and "21", "1.5 million" and "1,500,000"), which the judge does not match
on its own; a claim's numbers and dates are written as the evidence writes them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from grounding_app.engine.claims import Sentence, strip_list_marker
from grounding_app.engine.escalation import Outcome
from grounding_app.engine.lexical import PRONOUN, reference
from grounding_app.engine.normalise import canonical_text, strip_citations, strip_markup
from grounding_app.engine.retrieval import Passage

CONTEXT_SENTENCES = 2


def _readable(text: str) -> str:
    """What the judge and the lexical checks read of a claim or passage (module doc)."""
    return canonical_text(strip_citations(strip_markup(text)))


@dataclass
class _Verdict:
    score: float
    cited: list[Passage]
    windows: tuple[Passage, ...] = ()  # the best option's passages: what an escalation reads


@dataclass(frozen=True)
class _Context:
    """What a claim may be read with: the checked sentences before it (`claims`, their
    indices) and `text`, their words; `needed` where the claim cannot be read alone."""

    text: str = ""
    claims: tuple[int, ...] = ()
    needed: bool = False


@dataclass(eq=False)
class ClaimWork:
    """One piece of the answer on its way through a check: each step fills in its part
    (read, judged or word-matched, escalated), and the response is written from it."""

    number: int  # its place in the answer
    sentence: Sentence
    text: str  # what the judge reads (`_readable`; a question as the statement it asserts)
    language: str
    no_check_reason: str | None  # None for a claim that is checked
    context: _Context = _Context()
    # Until judged, no support; a piece that is not checked keeps this one, never read.
    verdict: _Verdict = field(default_factory=lambda: _Verdict(0.0, []))
    context_used: bool = False  # whether the verdict came from a reading with the context
    checked_by: str | None = None
    outcome: Outcome | None = None  # the escalation's, where it took the claim
    scale: str | None = None  # the name of the scale that mapped its score, if one did

    @property
    def required(self) -> bool:
        return self.no_check_reason is None


def _context(works: Sequence[ClaimWork], index: int) -> _Context:
    """The checked sentences before a claim that refers back ("It ...", "The film ..."),
    after the line that introduces its list or table ("The cast includes:")."""
    lead_in = works[index].sentence.lead_in
    lead = next(
        (
            j
            for j in range(index - 1, -1, -1)
            if lead_in and strip_list_marker(works[j].sentence.text) == lead_in
        ),
        None,
    )
    kind = reference(works[index].text)
    before = [j for j in range(index) if works[j].required][-CONTEXT_SENTENCES:] if kind else []
    claims = sorted({*before, *([lead] if lead is not None else [])})
    text = " ".join(works[j].text for j in claims)
    return _Context(text.strip(), tuple(claims), kind == PRONOUN)
