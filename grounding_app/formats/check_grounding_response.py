"""Reading a CheckGroundingResponse that someone pasted or uploaded (SPEC §1).

Two readers share one walk of the proto3 JSON:

- `parse_check_response` is strict: it returns the engine's `CheckResponse`, which has
  no room for problems, so any claim whose offsets do not fit the answer (or whose
  `citationIndices` point past `citedChunks`) is a `FormatError`;
- `grounded_from_check_json` is for import: malformed JSON is still a `FormatError`,
  but a claim whose offsets are out of range, inside a character or disagree with its
  `claimText` is reported as a `Problem` (with the claim's text) and not placed, and a
  bad citation or fact index is reported and dropped, so the reviewer sees the rest.

Choices where the API is silent: a missing `startPos` is 0 (proto3 default) but a
missing `endPos` is a problem, since an empty span at 0 would be a guess; a missing
`groundingCheckRequired` is true (responses from before the field existed checked every
claim); `source` may be a JSON integer as well as the string the API sends; the
newer `FactChunk` fields `uri`, `title` and `domain` win over the same keys in
`sourceMetadata`; unknown fields are ignored; our own `language`, `checkedBy` (what
judged a claim), `noCheckReason` (why a piece is not checked) and
`contextClaimIndices` (the earlier claims a claim was read with) and `calibration` (the
scope's scale its score is on) are read back, and a
value of `checkedBy` or `noCheckReason` we never write, or a context that is not an
earlier claim, is a problem. So are `unsupportedSpans` (the words the check found its
best evidence lacks), kept exactly as the check returned them; a span outside its claim
is a problem.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from grounding_app.engine import (
    CHECKED_BY,
    NO_CHECK_REASONS,
    CheckRequest,
    CheckResponse,
    CitedChunk,
    Claim,
    find_lone_surrogate,
)
from grounding_app.formats import _reader as r
from grounding_app.formats.from_check import grounded_from_check
from grounding_app.formats.grounded import GroundedAnswer, Problem

__all__ = ["grounded_from_check_json", "parse_check_response"]


@dataclass(frozen=True)
class _Chunk:
    source_path: str
    chunk: CitedChunk
    uri: str
    title: str
    domain: str


@dataclass(frozen=True)
class _Claim:
    span: r.Span
    citations: tuple[tuple[str, int], ...]
    grounding_check_required: bool
    score: float | None
    language: str | None
    checked_by: str | None
    no_check_reason: str | None
    context: tuple[tuple[str, int], ...] = ()
    unsupported: tuple[tuple[str, int, int], ...] = ()  # (path, start, end) as on the wire
    scale: str | None = None


@dataclass(frozen=True)
class _Response:
    support_score: float | None
    chunks: tuple[_Chunk, ...]
    claims: tuple[_Claim, ...]


def _chunk(path: str, value: object) -> _Chunk:
    data = r.obj(path, value)
    source_path, source = r.get(data, path, "source")
    if source is None:
        r.fail(source_path, "missing: expected the index of the cited fact, as a string.")
    metadata_path, metadata = r.get(data, path, "sourceMetadata")
    chunk = CitedChunk(
        chunk_text=r.opt_string(data, path, "chunkText"),
        source=r.integer(source_path, source),
        source_metadata={} if metadata is None else r.string_map(metadata_path, metadata),
    )
    r.opt_int(data, path, "index")  # validated only: the array order is the index
    return _Chunk(
        source_path=source_path,
        chunk=chunk,
        uri=r.opt_string(data, path, "uri"),
        title=r.opt_string(data, path, "title"),
        domain=r.opt_string(data, path, "domain"),
    )


def _claim(path: str, value: object) -> _Claim:
    data = r.obj(path, value)
    start_path, start = r.opt_int(data, path, "startPos")
    end_path, end = r.opt_int(data, path, "endPos")
    text_path, _ = r.get(data, path, "claimText")
    span = r.Span(
        part=0,
        start=start or 0,
        end=end,
        text=r.opt_string(data, path, "claimText"),
        part_path=path,
        start_path=start_path,
        end_path=end_path,
        text_path=text_path,
    )
    return _Claim(
        span=span,
        citations=r.indices(data, path, "citationIndices"),
        grounding_check_required=r.opt_bool(data, path, "groundingCheckRequired", default=True),
        score=r.opt_number(data, path, "score"),
        language=r.opt_string(data, path, "language") or None,
        checked_by=_one_of(data, path, "checkedBy", CHECKED_BY),
        no_check_reason=_one_of(data, path, "noCheckReason", NO_CHECK_REASONS),
        context=r.indices(data, path, "contextClaimIndices"),
        scale=r.opt_string(data, path, "calibration") or None,
        unsupported=r.each(data, path, "unsupportedSpans", _unsupported_span),
    )


def _unsupported_span(path: str, value: object) -> tuple[str, int, int]:
    data = r.obj(path, value)
    _, start = r.opt_int(data, path, "startPos")
    end_path, end = r.opt_int(data, path, "endPos")
    if end is None:
        r.fail(end_path, "missing: expected the UTF-8 byte offset where the words end.")
    return path, start or 0, end


def _words(claim: _Claim) -> tuple[tuple[tuple[int, int], ...], list[Problem]]:
    """The claim's unsupported words as the check returned them, and a problem for each
    span that does not lie inside the claim (left out)."""
    spans, problems = [], []
    end = claim.span.end if claim.span.end is not None else claim.span.start
    for path, a, b in claim.unsupported:
        if claim.span.start <= a < b <= end:
            spans.append((a, b))
        else:
            problems.append(
                Problem(
                    path, f"words {a}-{b} are not inside their claim ({claim.span.start}-{end})."
                )
            )
    return tuple(spans), problems


def _one_of(data: dict[str, object], path: str, key: str, values: tuple[str, ...]) -> str | None:
    """One of our enum extensions, as the engine names it; absent in other tools' output."""
    value = r.opt_string(data, path, key)
    if not value:
        return None
    if value.lower() not in values:
        r.fail(
            r.join(path, key),
            f"unknown value {value!r}: expected one of "
            + ", ".join(c.upper() for c in values)
            + ".",
        )
    return value.lower()


def _read(data: object, path: str) -> _Response:
    response = r.obj(path, data)
    r.each(response, path, "citedFacts", _cited_fact)  # validated only: parallel to chunks
    return _Response(
        support_score=r.opt_number(response, path, "supportScore"),
        chunks=r.each(response, path, "citedChunks", _chunk),
        claims=r.each(response, path, "claims", _claim),
    )


def _cited_fact(path: str, value: object) -> str:
    return r.opt_string(r.obj(path, value), path, "chunkText")


def _bad_context(index: int, position: int) -> str:
    return (
        f"claim {index} cannot give context to claim {position}: only an earlier claim"
        f" can (0 to {position - 1})."
        if position
        else f"claim {index} cannot give context to the first claim: none comes before it."
    )


def _engine_claim(
    claim: _Claim,
    citations: tuple[int, ...],
    context: tuple[int, ...] = (),
    unsupported: tuple[tuple[int, int], ...] = (),
) -> Claim:
    assert claim.span.end is not None  # checked by PartTexts.check before we get here
    return Claim(
        start=claim.span.start,
        end=claim.span.end,
        text=claim.span.text,
        grounding_check_required=claim.grounding_check_required,
        citation_indices=citations,
        score=claim.score,
        language=claim.language,
        checked_by=claim.checked_by,
        no_check_reason=claim.no_check_reason,
        context_claims=context,
        unsupported=unsupported,
        scale=claim.scale,
    )


def parse_check_response(data: object, answer: str) -> CheckResponse:
    """A CheckGroundingResponse as the engine's `CheckResponse`, every offset checked.

    `answer` is the `answerCandidate` the response was computed for: offsets are bytes
    into it. Raises `FormatError` (an `ImportFormatError`) naming the first bad field.
    """
    if (where := find_lone_surrogate(answer)) is not None:
        r.fail("answer", f"the answer holds a lone surrogate at character {where}.")
    response = _read(data, "")
    parts = r.PartTexts([answer])
    claims: list[Claim] = []
    for claim in response.claims:
        problem = parts.check(claim.span)
        if problem is not None:
            r.fail(problem.field, problem.message)
        for index_path, index in claim.citations:
            if not 0 <= index < len(response.chunks):
                r.fail(index_path, _bad_citation(index, len(response.chunks)))
        for index_path, index in claim.context:
            if not 0 <= index < len(claims):
                r.fail(index_path, _bad_context(index, len(claims)))
        words, bad = _words(claim)
        if bad:
            r.fail(bad[0].field, bad[0].message)
        claims.append(
            _engine_claim(
                claim,
                tuple(index for _, index in claim.citations),
                tuple(index for _, index in claim.context),
                words,
            )
        )
    return CheckResponse(
        claims=tuple(claims),
        cited_chunks=tuple(chunk.chunk for chunk in response.chunks),
        support_score=response.support_score,
    )


def grounded_from_check_json(request: CheckRequest, data: object, path: str = "") -> GroundedAnswer:
    """An imported response to `request` as a grounded answer, bad spans kept as problems.

    `path` prefixes every field named in errors and problems (e.g. "response").
    Raises `ImportFormatError` for JSON that is not a CheckGroundingResponse at all.
    """
    response = _read(data, path)
    parts = r.PartTexts([request.answer])
    problems: list[Problem] = []
    claims: list[Claim] = []
    placed: dict[int, int] = {}  # a claim's index on the wire -> among the claims placed
    for position, claim in enumerate(response.claims):
        problem = parts.check(claim.span)
        if problem is not None:
            problems.append(r.not_placed("claim", claim.span.text, problem))
            continue
        citations = []
        for index_path, index in claim.citations:
            if 0 <= index < len(response.chunks):
                citations.append(index)
            else:
                problems.append(Problem(index_path, _bad_citation(index, len(response.chunks))))
        context = []
        for index_path, index in claim.context:
            if not 0 <= index < position:
                problems.append(Problem(index_path, _bad_context(index, position)))
            elif index in placed:
                context.append(placed[index])
        placed[position] = len(claims)
        words, bad = _words(claim)
        problems.extend(bad)
        claims.append(_engine_claim(claim, tuple(citations), tuple(context), words))
    engine_response = CheckResponse(
        claims=tuple(claims),
        cited_chunks=tuple(chunk.chunk for chunk in response.chunks),
        support_score=response.support_score,
    )
    grounded = grounded_from_check(request, engine_response)
    candidate = grounded.candidates[0]
    sources = []
    for item, source in zip(response.chunks, candidate.sources, strict=True):
        fact_index = item.chunk.source
        if not 0 <= fact_index < len(request.facts):
            problems.append(
                Problem(
                    item.source_path,
                    f"fact {fact_index} is out of range: the request has "
                    f"{r.count(len(request.facts), 'fact')}.",
                )
            )
            source = replace(source, fact_index=None)
        sources.append(
            replace(
                source,
                uri=item.uri or source.uri,
                title=item.title or source.title,
                domain=item.domain or source.domain,
            )
        )
    candidate = replace(candidate, sources=tuple(sources), problems=tuple(problems))
    return GroundedAnswer(format="check_grounding", candidates=(candidate,))


def _bad_citation(index: int, count: int) -> str:
    return (
        f"citation {index} is out of range: citedChunks has {r.count(count, 'entry', 'entries')}."
    )
