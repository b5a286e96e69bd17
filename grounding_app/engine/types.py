"""Engine-side request and response shapes (SPEC §1), free of any wire or Django detail.

Offsets are UTF-8 byte offsets, end exclusive, exactly as on the wire.
"""

from __future__ import annotations

from dataclasses import dataclass, field

DEFAULT_CITATION_THRESHOLD = 0.6
MAX_FACTS = 200
MAX_FACT_CHARS = 10_000
MAX_ANSWER_TOKENS = 4_096
# What judged a claim: the trained verifier, the zero-shot feature judge (both read
# English), or word matching, for a language that no model of the engine reads.
VERIFIER = "verifier"
FEATURE_JUDGE = "feature_judge"
WORD_MATCHING = "word_matching"
CHECKED_BY = (VERIFIER, FEATURE_JUDGE, WORD_MATCHING)
# The feature judge's weights were fitted on English pairs: the languages it reads.
FEATURE_JUDGE_LANGUAGES = ("en",)
# Why a piece of a Markdown answer is no claim at all (`claims.split_claims`): a table's
# header row or its rule row (`|---|:---:|`), or code (a fenced or indented block). Such
# pieces keep their span, so the claims still cover the answer, but are never checked.
TABLE_HEADER = "table_header"
TABLE_RULE = "table_rule"
CODE = "code"
NO_CHECK_REASONS = (TABLE_HEADER, TABLE_RULE, CODE)


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
    # Of a piece of Markdown structure that is no claim: one of `NO_CHECK_REASONS`.
    no_check_reason: str | None = None


@dataclass(frozen=True)
class CheckResponse:
    claims: tuple[Claim, ...]
    cited_chunks: tuple[CitedChunk, ...]
    support_score: float | None  # None when no claim needs a check
