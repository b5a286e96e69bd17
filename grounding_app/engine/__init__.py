"""The grounding engine: pure Python, no Django.

`check(request)` splits the answer into claims, finds evidence in the facts and asks a
judge how likely each claim is supported. The default engine is built once per process,
lazily and thread-safely, on first use.
"""

from __future__ import annotations

from grounding_app.engine.service import check, default_engine, is_ready, warm_up_in_background
from grounding_app.engine.types import (
    DEFAULT_CITATION_THRESHOLD,
    MAX_ANSWER_TOKENS,
    MAX_FACT_CHARS,
    MAX_FACTS,
    CheckRequest,
    CheckResponse,
    CitedChunk,
    Claim,
    Fact,
)

__all__ = [
    "DEFAULT_CITATION_THRESHOLD",
    "MAX_ANSWER_TOKENS",
    "MAX_FACTS",
    "MAX_FACT_CHARS",
    "CheckRequest",
    "CheckResponse",
    "CitedChunk",
    "Claim",
    "Fact",
    "check",
    "default_engine",
    "is_ready",
    "warm_up_in_background",
]
