"""One claim's record on its way through a check, and what the judge reads of it.

Claims keep their exact spans, but the judge reads them and the evidence normalised
(`_readable`): without citation markers ("[1]", "【3†source】") and HTML tags, which
are no part of what is claimed, and with numbers that have several spellings in one
("twenty-one" and "21", "1.5 million" and "1,500,000"), which the judge does not match
on its own; a claim's numbers and dates are written as the evidence writes them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from grounding_app.engine.claims import Sentence, strip_list_marker
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


def _context(
    sentences: Sequence[Sentence], texts: Sequence[str], required: Sequence[bool], index: int
) -> _Context:
    """The checked sentences before a claim that refers back ("It ...", "The film ..."),
    after the line that introduces its list or table ("The cast includes:")."""
    lead_in = sentences[index].lead_in
    lead = next(
        (
            j
            for j in range(index - 1, -1, -1)
            if lead_in and strip_list_marker(sentences[j].text) == lead_in
        ),
        None,
    )
    kind = reference(texts[index])
    before = [j for j in range(index) if required[j]][-CONTEXT_SENTENCES:] if kind else []
    claims = sorted({*before, *([lead] if lead is not None else [])})
    text = " ".join(
        _readable(strip_list_marker(sentences[j].text)) if j == lead else texts[j] for j in claims
    )
    return _Context(text.strip(), tuple(claims), kind == PRONOUN)
