"""One answer and its facts as read from an evaluation tool's file (RAGAS, Langfuse).

The RAGAS and Langfuse readers both end here, so the batch lines take either the same
way: the answer to check, the passages it was given as facts, an id to report it by,
what else the row said (`meta`: the question, a reference answer, the trace's name),
and the short values a job's results can be grouped by (`labels`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from grounding_app.engine import Fact

MAX_LABEL_CHARS = 200


@dataclass(frozen=True)
class AnswerRecord:
    answer: str
    facts: tuple[Fact, ...]
    external_id: str = ""
    meta: dict[str, Any] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)


def short_labels(values: dict[str, object]) -> dict[str, str]:
    """The plain values (strings, numbers, booleans) of a mapping as group-by labels."""
    return {
        str(key)[:MAX_LABEL_CHARS]: str(value)[:MAX_LABEL_CHARS]
        for key, value in values.items()
        if isinstance(value, str | int | float | bool) and str(value).strip()
    }
