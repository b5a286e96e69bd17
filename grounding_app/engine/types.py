"""Engine-side request and response shapes (SPEC §1), free of any wire or Django detail.

Offsets are UTF-8 byte offsets, end exclusive, exactly as on the wire.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from grounding_app.engine.scales import Scale

DEFAULT_CITATION_THRESHOLD = 0.6
MAX_FACTS = 200
MAX_FACT_CHARS = 10_000
MAX_ANSWER_TOKENS = 4_096
# What judged a claim: the trained verifier, the zero-shot feature judge (both read
# English), or word matching, for a language that no model of the engine reads.
VERIFIER = "verifier"
FEATURE_JUDGE = "feature_judge"
WORD_MATCHING = "word_matching"
# A claim in an escalation's band that its judge (the app's LLM judge) decided.
LLM_JUDGE = "llm_judge"
CHECKED_BY = (VERIFIER, FEATURE_JUDGE, WORD_MATCHING, LLM_JUDGE)
# The feature judge's weights were fitted on English pairs: the languages it reads.
FEATURE_JUDGE_LANGUAGES = ("en",)
# Why a piece of an answer is no claim at all. Such pieces keep their span, so the claims
# still cover the answer, but are never checked and count in no score. Markdown structure
# (`claims.split_claims`): a table's header row or its rule row (`|---|:---:|`), code (a
# fenced or indented block), a heading (ATX or setext), a line ending in a colon that
# introduces the list, table or code below it (read as the items' context).
TABLE_HEADER = "table_header"
TABLE_RULE = "table_rule"
CODE = "code"
HEADING = "heading"
LEAD_IN = "lead_in"
# What a sentence says to the reader rather than about the world (`lang/sentences.py:
# unchecked_reason`, through the language profiles): an instruction ("Click Save."), a
# pointer to another source ("See the official site."), a question that asserts nothing,
# a greeting or opener ("Sure!", "Here is what I found."), a sign-off ("Hope this
# helps!"), and anything else without content (a reaction, a bare hedge or refusal).
INSTRUCTION = "instruction"
POINTER = "pointer"
QUESTION = "question"
GREETING = "greeting"
SIGN_OFF = "sign_off"
NO_CLAIM = "no_claim"
NO_CHECK_REASONS = (
    TABLE_HEADER,
    TABLE_RULE,
    CODE,
    HEADING,
    LEAD_IN,
    INSTRUCTION,
    POINTER,
    QUESTION,
    GREETING,
    SIGN_OFF,
    NO_CLAIM,
)
# The reasons that are the answer's Markdown layout, which pages draw as rendered rather
# than as claims.
LAYOUT_REASONS = (TABLE_HEADER, TABLE_RULE, CODE)


@dataclass(frozen=True)
class Penalties:
    """A verifier's fixed prices in logits, set by its `verifier.json` (a missing key
    costs the default here): the one place they are defined. `VerifierConfig` reads
    them; the pipeline's `Settings` takes the contradiction and number prices from them.

    SPEC §1: a claim with a number or a name the evidence lacks is only partly true. The
    model misses some of these (one swapped name in a list), so such claims pay a price
    chosen on dev, where it costs < 0.01 balanced accuracy; the number's is paid where the
    numbers check fires (`checks/numbers.py`): a number is compared by value there, once.
    Evidence that contradicts the claim (another name or number, a record's "no") is
    discounted too: a verifier whose fitted bias is high needs a larger price for the same
    contradiction to sink the score.
    """

    missing_number: float = 0.0
    missing_name: float = 0.0
    contradiction: float = 3.0

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Penalties:
        """The prices a `verifier.json` sets, the defaults for those it leaves out."""
        default = cls()
        return cls(
            **{
                f.name: float(data.get(f"{f.name}_penalty", getattr(default, f.name)))
                for f in fields(cls)
            }
        )

    def as_json(self) -> dict[str, float]:
        """The `verifier.json` keys, `missing_number_penalty` and so on."""
        return {f"{f.name}_penalty": getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True)
class Fact:
    text: str
    attributes: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class CheckRequest:
    answer: str
    facts: tuple[Fact, ...]
    citation_threshold: float = DEFAULT_CITATION_THRESHOLD
    enable_claim_level_score: bool = False
    # The scope's own scale (`scales.py`), fitted from its labels; None: the engine's.
    scale: Scale | None = None


@dataclass(frozen=True)
class CitedChunk:
    chunk_text: str
    source: int  # index of the fact in the request
    source_metadata: dict[str, str]


@dataclass(frozen=True)
class Claim:
    start: int
    end: int
    text: str
    grounding_check_required: bool
    citation_indices: tuple[int, ...] = ()
    score: float | None = None  # probability that the claim is supported; None when not checked
    # For a checked claim: its language (ISO 639-1) and what judged it, one of
    # `CHECKED_BY`: a model that reads the language, or word matching when none does.
    language: str | None = None
    checked_by: str | None = None
    # Of an unsupported claim: UTF-8 byte spans, in the answer, of the words its best
    # evidence does not back (`unsupported.py`, lexical pass).
    unsupported: tuple[tuple[int, int], ...] = ()
    # Of a piece that is no claim (Markdown structure, a greeting, ...): one of
    # `NO_CHECK_REASONS`; set on every piece that is not checked.
    no_check_reason: str | None = None
    # Of a claim in an escalation's band that it did not decide: why ("fell back: timeout").
    llm_judge: str | None = None
    # Of a checked claim whose verdict came from reading it with sentences before it (to
    # resolve "It ...", "The film ...", a list's lead-in): their indices among the claims.
    context_claims: tuple[int, ...] = ()
    # Of a checked claim whose score the request's scale mapped: the scale's name.
    scale: str | None = None


@dataclass(frozen=True)
class CheckResponse:
    claims: tuple[Claim, ...]
    cited_chunks: tuple[CitedChunk, ...]
    support_score: float | None  # None when no claim needs a check

    def weakest(self) -> Claim | None:
        """The checked claim with the lowest score: an answer is as supported as its
        weakest claim, which is how an example's verdict is measured."""
        checked = [c for c in self.claims if c.grounding_check_required and c.score is not None]
        return min(checked, key=lambda c: c.score or 0.0) if checked else None

    def weakest_score(self) -> float:
        """The weakest checked claim's score, 1.0 when no claim needs a check."""
        claim = self.weakest()
        return claim.score if claim is not None and claim.score is not None else 1.0
