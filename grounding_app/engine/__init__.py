"""The grounding engine: pure Python, no Django.

`check(request)` splits the answer into claims, finds evidence in the facts and asks a
judge how likely each claim is supported. The package keeps no engine: each call of
`GroundingEngine.default(judge)` builds a new one and loads its models. The app keeps
the engine it checks with in its checker (`grounding_app/active_verifier/checker.py`),
which builds the active verifier's engine on first use and again when another verifier
is chosen.

Code outside the engine imports these names only, never a submodule
(`tests/test_architecture.py`), so the modules behind them can move freely. Importing
the package loads no model: the verifier's module is plain Python and NumPy, and its
model is read on first use.
"""

from __future__ import annotations

from grounding_app.engine.aggregate import FEATURES as AGGREGATE_FEATURES
from grounding_app.engine.claims import (
    needs_grounding_check,
    split_claims,
    split_sentences,
    unchecked_reason,
)
from grounding_app.engine.encoders import (
    CacheCounts,
    Encoder,
    HashingEncoder,
    MemoEncoder,
    MiniLMEncoder,
)
from grounding_app.engine.escalation import Band, Escalated, Escalation, Outcome, Ruling
from grounding_app.engine.judges import (
    FEATURE_JUDGE_WEIGHTS,
    FEATURE_NAMES,
    ClaimInContext,
    Evidence,
    FeatureJudge,
    Judge,
)
from grounding_app.engine.lang import PROFILES, identify, language_name, profile
from grounding_app.engine.lang.text import clear_text_caches
from grounding_app.engine.lang.tokens import count_tokens
from grounding_app.engine.lexical import (
    NAME_MARK,
    NUMBER_MARK,
    claim_marks,
    content_stems,
    numbers,
    refers_back,
)
from grounding_app.engine.offsets import (
    OffsetError,
    byte_prefix,
    char_index,
    find_lone_surrogate,
    slice_bytes,
    utf8_len,
)
from grounding_app.engine.pipeline import GroundingEngine, is_bookkeeping, parse_judge
from grounding_app.engine.retrieval import split_fact
from grounding_app.engine.scales import Platt, Scale
from grounding_app.engine.types import (
    CHECKED_BY,
    DEFAULT_CITATION_THRESHOLD,
    FEATURE_JUDGE,
    FEATURE_JUDGE_LANGUAGES,
    LAYOUT_REASONS,
    LLM_JUDGE,
    MAX_ANSWER_TOKENS,
    MAX_FACT_CHARS,
    MAX_FACTS,
    NO_CHECK_REASONS,
    VERIFIER,
    WORD_MATCHING,
    CheckRequest,
    CheckResponse,
    CitedChunk,
    Claim,
    Fact,
    Penalties,
)
from grounding_app.engine.unsupported import ClaimToExplain, best_passage, unsupported_spans

# The verifier's training surface, for `grounding_lab/`. Its MAX_LENGTH is renamed: beside the
# request limits above, a bare MAX_LENGTH would read as one of them.
from grounding_app.engine.verifier.model import MAX_LENGTH as VERIFIER_MAX_LENGTH
from grounding_app.engine.verifier.model import (
    VERIFIER_DIR,
    CrossEncoderJudge,
    build_model,
    claim_text,
    encode_pairs,
    entailment_index,
    load_model,
    load_tokenizer,
    supported_log_odds,
)
from grounding_app.engine.verifying import VerifierJudge

# The word-matching judge's features, for `grounding_lab/fit_word_match.py`; renamed beside the
# feature judge's FEATURE_NAMES.
from grounding_app.engine.word_match import FEATURE_NAMES as WORD_MATCH_FEATURES
from grounding_app.engine.word_match import WORD_MATCH_WEIGHTS, WordMatchJudge
from grounding_app.engine.word_match import features as word_match_features

# The languages the engine tells apart (each has a profile); a verifier reads some of them.
known_languages = tuple(PROFILES)

__all__ = [
    "AGGREGATE_FEATURES",
    "CHECKED_BY",
    "DEFAULT_CITATION_THRESHOLD",
    "FEATURE_JUDGE",
    "FEATURE_JUDGE_LANGUAGES",
    "FEATURE_JUDGE_WEIGHTS",
    "FEATURE_NAMES",
    "LAYOUT_REASONS",
    "LLM_JUDGE",
    "MAX_ANSWER_TOKENS",
    "MAX_FACTS",
    "MAX_FACT_CHARS",
    "NAME_MARK",
    "NO_CHECK_REASONS",
    "NUMBER_MARK",
    "VERIFIER",
    "VERIFIER_DIR",
    "VERIFIER_MAX_LENGTH",
    "WORD_MATCHING",
    "WORD_MATCH_FEATURES",
    "WORD_MATCH_WEIGHTS",
    "Band",
    "CacheCounts",
    "CheckRequest",
    "CheckResponse",
    "CitedChunk",
    "Claim",
    "ClaimInContext",
    "ClaimToExplain",
    "CrossEncoderJudge",
    "Encoder",
    "Escalated",
    "Escalation",
    "Evidence",
    "Fact",
    "FeatureJudge",
    "GroundingEngine",
    "HashingEncoder",
    "Judge",
    "MemoEncoder",
    "MiniLMEncoder",
    "OffsetError",
    "Outcome",
    "Penalties",
    "Platt",
    "Ruling",
    "Scale",
    "VerifierJudge",
    "WordMatchJudge",
    "best_passage",
    "build_model",
    "byte_prefix",
    "char_index",
    "claim_marks",
    "claim_text",
    "clear_text_caches",
    "content_stems",
    "count_tokens",
    "encode_pairs",
    "entailment_index",
    "find_lone_surrogate",
    "identify",
    "is_bookkeeping",
    "known_languages",
    "language_name",
    "load_model",
    "load_tokenizer",
    "needs_grounding_check",
    "numbers",
    "parse_judge",
    "profile",
    "refers_back",
    "slice_bytes",
    "split_claims",
    "split_fact",
    "split_sentences",
    "supported_log_odds",
    "unchecked_reason",
    "unsupported_spans",
    "utf8_len",
    "word_match_features",
]
