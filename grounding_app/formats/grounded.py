"""One internal shape for every grounded answer we render, whatever wire format it came in.

Offsets are UTF-8 byte offsets into the text of one part, end exclusive, exactly as on
the wire; nothing here converts them. Problems found while parsing (offsets out of range,
inside a character, or disagreeing with the segment's own text) are kept in `problems`
so the page can report them instead of silently shifting anything.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Verdict = Literal["supported", "unsupported", "no_check"]
SourceFormat = Literal["check_grounding", "gemini", "agent"]


@dataclass(frozen=True)
class Source:
    """Something a segment cites: a fact chunk, a web page, a retrieved document."""

    text: str = ""  # the cited chunk text, if the format carries one
    title: str = ""
    uri: str = ""  # raw and untrusted: rendering decides whether it may become a link
    domain: str = ""
    requires_attribution: bool = False
    fact_index: int | None = None  # check grounding: index of the fact in the request
    metadata: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class FactPassage:
    """A passage of the request's facts shown beside a claim, where the passages it cites
    are not the whole story: the closest one to an unsupported claim that cites none
    ("closest"), or the passage of a cited fact stating numbers of the claim that no cited
    passage states ("numbers")."""

    text: str
    fact_index: int
    reason: Literal["closest", "numbers"]
    title: str = ""


@dataclass(frozen=True)
class Segment:
    """A claim (check grounding) or a supported segment (Gemini, agent citations)."""

    part: int  # index into GroundedAnswer.parts
    start: int
    end: int
    text: str  # the text the format says the span holds ('' when it does not say)
    source_indices: tuple[int, ...] = ()  # into GroundedAnswer.sources
    verdict: Verdict | None = None  # None where the format gives no verdict
    score: float | None = None
    confidence: tuple[float, ...] = ()  # Gemini confidenceScores, parallel to sources
    # Of an unsupported claim: byte spans (in the part, like start/end) of the words its
    # best evidence does not back (engine.unsupported).
    unsupported: tuple[tuple[int, int], ...] = ()
    # Of a checked claim: its language (ISO 639-1) and what judged it (engine.CHECKED_BY:
    # a model that reads the language, or word matching where none does).
    language: str | None = None
    checked_by: str | None = None
    # Of a sentence not checked because it asserts nothing: why (engine.NO_CHECK_REASONS,
    # "greeting", "pointer", ...), which the page says in words.
    no_check_reason: str | None = None
    # Of a claim the LLM judge was asked about and did not decide: why ("fell back: timeout").
    llm_judge: str | None = None
    # Of a checked claim, a passage of the facts beyond the cited ones (`FactPassage`).
    evidence: FactPassage | None = None
    # Of a checked claim whose verdict came from reading it with earlier sentences ("It
    # ...", a list's lead-in): their byte spans in the part (engine `context_claims`).
    read_with: tuple[tuple[int, int], ...] = ()
    # Of a checked claim scored on its scope's own scale: the calibration's name
    # ("groundingConfigs/NAME/calibrations/ID", engine `Claim.scale`).
    calibration: str | None = None


@dataclass(frozen=True)
class Problem:
    """Something wrong with the input that the page must show, never hide."""

    field: str  # e.g. "candidates[0].groundingMetadata.groundingSupports[2].segment.endIndex"
    message: str


@dataclass(frozen=True)
class Candidate:
    parts: tuple[str, ...]
    segments: tuple[Segment, ...] = ()
    sources: tuple[Source, ...] = ()
    support_score: float | None = None
    web_search_queries: tuple[str, ...] = ()
    search_suggestion_uris: tuple[str, ...] = ()  # agent webSearchQueries[].uri, parallel
    search_entry_html: tuple[str, ...] = ()  # renderedContent / htmls: untrusted HTML
    problems: tuple[Problem, ...] = ()


@dataclass(frozen=True)
class GroundedAnswer:
    format: SourceFormat
    candidates: tuple[Candidate, ...]
