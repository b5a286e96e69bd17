"""Reading a Gemini `GenerateContentResponse` with `groundingMetadata` (SPEC §2).

We walk the JSON ourselves rather than validate it with
`google.genai.types.GenerateContentResponse.model_validate`, which does keep every
field we need (`retrievedContext.text`, `renderedContent`, `partIndex`) but:
its models forbid unknown fields, so a response with any field newer than the installed
SDK is refused (the SDK's own client strips them first with a private helper); its lax
mode reads `true` as the integer 1 and the string "NaN" as a score; and google-genai is
a whole API client that the server does not otherwise need. The tests still check every
fixture against it, so the two readings cannot drift apart unnoticed.

Choices where the API is silent:
- every part counts for `partIndex`: a part without `text` (functionCall, inlineData,
  executableCode...) is kept as an empty part, and a thought part keeps its text, so
  indices stay aligned with `content.parts`; a candidate without content has no parts;
- a missing `startIndex`/`partIndex` is 0 (SPEC §2), a missing `endIndex` is a problem,
  and an empty `segment.text` means the format does not say what the span holds;
- a grounding chunk is read from whichever of `web`, `retrievedContext`, `maps`, `image`
  (or, failing those, any other object) it holds: `uri`, `title`, `text`, `domain`
  become the source, its other string fields the metadata (camelCase keys), the kind
  `metadata["kind"]`; `retrievedContext.ragChunk.text` stands in for a missing `text`;
  a chunk holding no object is kept as an empty source so indices stay aligned;
- `confidenceScores` stay parallel to `groundingChunkIndices`: a score is dropped with
  its bad index; scores that are not one per index are reported and left out.
"""

from __future__ import annotations

from grounding_app.formats import _reader as r
from grounding_app.formats.grounded import Candidate, GroundedAnswer, Problem, Segment, Source

__all__ = ["parse_gemini"]

_SOURCE_FIELDS = ("uri", "title", "text", "domain")
_CHUNK_KINDS = ("web", "retrievedContext", "maps", "image")


def _parts(path: str, candidate: dict[str, object]) -> tuple[str, ...]:
    content_path, content = r.get(candidate, path, "content")
    if content is None:
        return ()
    content_obj = r.obj(content_path, content)
    parts_path, parts = r.get(content_obj, content_path, "parts")
    if parts is None:
        return ()
    texts = []
    for part_path, part in r.elements(parts_path, parts):
        texts.append(r.opt_string(r.obj(part_path, part), part_path, "text"))
    return tuple(texts)


def _source(path: str, value: object) -> Source:
    chunk = r.obj(path, value)
    known = [
        key for key, item in chunk.items() if r.camel(key) in _CHUNK_KINDS and item is not None
    ]
    if len(known) > 1:
        r.fail(path, f"expected one kind of chunk, got {' and '.join(known)}.")
    other = [key for key, item in chunk.items() if isinstance(item, dict)]
    if not known and not other:
        return Source()
    kind = (known or other)[0]
    kind_path = r.join(path, kind)
    body = r.obj(kind_path, chunk[kind])
    fields = {name: r.opt_string(body, kind_path, name) for name in _SOURCE_FIELDS}
    if not fields["text"]:
        rag_path, rag = r.get(body, kind_path, "ragChunk")
        if rag is not None:
            fields["text"] = r.opt_string(r.obj(rag_path, rag), rag_path, "text")
    metadata = {"kind": r.camel(kind)}
    for key, item in body.items():
        if r.camel(key) not in _SOURCE_FIELDS and isinstance(item, str):
            metadata[r.camel(key)] = r.string(r.join(kind_path, key), item)
    return Source(
        text=fields["text"],
        title=fields["title"],
        uri=fields["uri"],
        domain=fields["domain"],
        metadata=metadata,
    )


def _support(
    path: str,
    value: object,
    parts: r.PartTexts,
    source_count: int,
    problems: list[Problem],
) -> Segment | None:
    support = r.obj(path, value)
    segment_path, segment_value = r.get(support, path, "segment")
    segment = {} if segment_value is None else r.obj(segment_path, segment_value)
    part_path, part = r.opt_int(segment, segment_path, "partIndex")
    start_path, start = r.opt_int(segment, segment_path, "startIndex")
    end_path, end = r.opt_int(segment, segment_path, "endIndex")
    text_path, _ = r.get(segment, segment_path, "text")
    span = r.Span(
        part=part or 0,
        start=start or 0,
        end=end,
        text=r.opt_string(segment, segment_path, "text"),
        part_path=part_path,
        start_path=start_path,
        end_path=end_path,
        text_path=text_path,
    )
    chunk_indices = r.indices(support, path, "groundingChunkIndices")
    scores_path, _ = r.get(support, path, "confidenceScores")
    scores = r.each(support, path, "confidenceScores", r.number)
    problem = parts.check(span)
    if problem is not None:
        problems.append(r.not_placed("segment", span.text, problem))
        return None
    if scores and len(scores) != len(chunk_indices):
        problems.append(
            Problem(
                scores_path,
                f"{r.count(len(scores), 'score')} for "
                f"{r.count(len(chunk_indices), 'chunk index', 'chunk indices')}; "
                "the scores are left out.",
            )
        )
        scores = ()
    kept_indices: list[int] = []
    kept_scores: list[float] = []
    for position, (index_path, index) in enumerate(chunk_indices):
        if not 0 <= index < source_count:
            problems.append(
                Problem(
                    index_path,
                    f"chunk {index} is out of range: groundingChunks has "
                    f"{r.count(source_count, 'entry', 'entries')}.",
                )
            )
            continue
        kept_indices.append(index)
        if scores:
            kept_scores.append(scores[position])
    assert span.end is not None  # check() refuses a span without an end
    return Segment(
        part=span.part,
        start=span.start,
        end=span.end,
        text=span.text,
        source_indices=tuple(kept_indices),
        confidence=tuple(kept_scores),
    )


def _candidate(path: str, value: object) -> Candidate:
    candidate = r.obj(path, value)
    parts = _parts(path, candidate)
    metadata_path, metadata_value = r.get(candidate, path, "groundingMetadata")
    if metadata_value is None:
        return Candidate(parts=parts)
    metadata = r.obj(metadata_path, metadata_value)

    sources = r.each(metadata, metadata_path, "groundingChunks", _source)
    entry_path, entry = r.get(metadata, metadata_path, "searchEntryPoint")
    html = ""
    if entry is not None:
        html = r.opt_string(r.obj(entry_path, entry), entry_path, "renderedContent")

    problems: list[Problem] = []
    segments = []
    supports_path, supports = r.get(metadata, metadata_path, "groundingSupports")
    if supports is not None:
        texts = r.PartTexts(parts)
        for item_path, item in r.elements(supports_path, supports):
            segment = _support(item_path, item, texts, len(sources), problems)
            if segment is not None:
                segments.append(segment)

    return Candidate(
        parts=parts,
        segments=tuple(segments),
        sources=sources,
        web_search_queries=r.strings(metadata, metadata_path, "webSearchQueries"),
        search_entry_html=(html,) if html else (),
        problems=tuple(problems),
    )


def parse_gemini(data: object, path: str = "") -> GroundedAnswer:
    """A GenerateContentResponse (camelCase or snake_case JSON) as a grounded answer.

    Raises `ImportFormatError` naming the first malformed field; bad offsets and chunk
    indices become `Problem`s on their candidate instead.
    """
    response = r.obj(path, data)
    candidates_path, candidates = r.get(response, path, "candidates")
    if candidates is None or candidates == []:
        reason = ""
        feedback_path, feedback = r.get(response, path, "promptFeedback")
        if isinstance(feedback, dict):
            block = r.opt_string(feedback, feedback_path, "blockReason")
            reason = f" (promptFeedback.blockReason is {block})" if block else ""
        r.fail(candidates_path, f"the response has no candidates{reason}: nothing to show.")
    return GroundedAnswer(
        format="gemini", candidates=r.each(response, path, "candidates", _candidate)
    )
