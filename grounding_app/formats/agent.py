"""Reading the output of an agent session that used the search tool (SPEC §3).

The output is a JSON list of items. An item may hold `text` (the agent's answer, or a
piece of it), `citations` {citedChunks, inlineCitations} and `googleSearchSuggestions`
{htmls, webSearchQueries}, in camelCase or snake_case.

Choices where the spec is silent:
- the `text` of all items, concatenated in order with nothing between them, is the
  answer: one part. Inline-citation offsets are UTF-8 bytes into that whole text, since
  the spec speaks of "the agent's text output", not of one item's text;
- several `citations` items are merged: each item's `citedChunkIndices` point into its
  own `citedChunks`, which are appended to one source list;
- a missing `startIndex` is 0 (as in SPEC §2), a missing `endIndex` is a problem;
  a missing `requiresAttribution` is false; cited chunks carry no domain, so
  `Source.domain` stays empty (rendering may derive one from the raw `uri`);
- items holding none of the three keys are ignored (sessions carry other outputs), but
  the list must hold at least one item we understand.
"""

from __future__ import annotations

from grounding_app.formats import _reader as r
from grounding_app.formats.grounded import Candidate, GroundedAnswer, Problem, Segment, Source

__all__ = ["AGENT_ITEM_KEYS", "parse_agent"]

AGENT_ITEM_KEYS = ("text", "citations", "googleSearchSuggestions")


def _source(path: str, value: object) -> Source:
    chunk = r.obj(path, value)
    return Source(
        text=r.opt_string(chunk, path, "text"),
        title=r.opt_string(chunk, path, "title"),
        uri=r.opt_string(chunk, path, "uri"),
        requires_attribution=r.opt_bool(chunk, path, "requiresAttribution"),
    )


def _inline(
    path: str,
    value: object,
    first_source: int,
    source_count: int,
    parts: r.PartTexts,
    problems: list[Problem],
) -> Segment | None:
    citation = r.obj(path, value)
    start_path, start = r.opt_int(citation, path, "startIndex")
    end_path, end = r.opt_int(citation, path, "endIndex")
    chunk_indices = r.indices(citation, path, "citedChunkIndices")
    span = r.Span(
        part=0,
        start=start or 0,
        end=end,
        text="",
        part_path=path,
        start_path=start_path,
        end_path=end_path,
        text_path=path,
    )
    problem = parts.check(span)
    if problem is not None:
        problems.append(r.not_placed("inline citation", "", problem))
        return None
    kept = []
    for index_path, index in chunk_indices:
        if 0 <= index < source_count:
            kept.append(first_source + index)
        else:
            problems.append(
                Problem(
                    index_path,
                    f"chunk {index} is out of range: citedChunks has "
                    f"{r.count(source_count, 'entry', 'entries')}.",
                )
            )
    assert end is not None  # check() refuses a span without an end
    return Segment(
        part=0,
        start=span.start,
        end=end,
        text="",
        source_indices=tuple(kept),
    )


def parse_agent(data: object, path: str = "") -> GroundedAnswer:
    """An agent session's output list as a grounded answer with one candidate, one part.

    Raises `ImportFormatError` naming the first malformed field; bad offsets and chunk
    indices become `Problem`s instead.
    """
    if not isinstance(data, list):
        r.fail(path, f"expected the session output as an array of items, got {r.json_type(data)}.")
    items = [(item_path, r.obj(item_path, item)) for item_path, item in r.elements(path, data)]

    texts: list[str] = []
    citation_blocks: list[tuple[str, dict[str, object]]] = []
    html: list[str] = []
    queries: list[str] = []
    query_uris: list[str] = []
    understood = False
    for item_path, item in items:
        text_path, text = r.get(item, item_path, "text")
        if text is not None:
            texts.append(r.string(text_path, text))
        citations_path, citations = r.get(item, item_path, "citations")
        if citations is not None:
            citation_blocks.append((citations_path, r.obj(citations_path, citations)))
        suggestions_path, suggestions = r.get(item, item_path, "googleSearchSuggestions")
        if suggestions is not None:
            block = r.obj(suggestions_path, suggestions)
            html.extend(r.strings(block, suggestions_path, "htmls"))
            queries_path, query_list = r.get(block, suggestions_path, "webSearchQueries")
            if query_list is not None:
                for query_path, query in r.elements(queries_path, query_list):
                    query_obj = r.obj(query_path, query)
                    queries.append(r.opt_string(query_obj, query_path, "query"))
                    query_uris.append(r.opt_string(query_obj, query_path, "uri"))
        understood = understood or any(r.spelling(item, key) for key in AGENT_ITEM_KEYS)
    if not understood:
        r.fail(path, "no item holds text, citations or googleSearchSuggestions.")

    answer = "".join(texts)
    parts = r.PartTexts([answer])
    sources: list[Source] = []
    segments: list[Segment] = []
    problems: list[Problem] = []
    for citations_path, block in citation_blocks:
        block_sources = r.each(block, citations_path, "citedChunks", _source)
        first = len(sources)
        sources.extend(block_sources)
        inline_path, inline = r.get(block, citations_path, "inlineCitations")
        if inline is None:
            continue
        for inline_path_n, inline_item in r.elements(inline_path, inline):
            segment = _inline(
                inline_path_n, inline_item, first, len(block_sources), parts, problems
            )
            if segment is not None:
                segments.append(segment)

    candidate = Candidate(
        parts=(answer,),
        segments=tuple(segments),
        sources=tuple(sources),
        web_search_queries=tuple(queries),
        search_suggestion_uris=tuple(query_uris),
        search_entry_html=tuple(html),
        problems=tuple(problems),
    )
    return GroundedAnswer(format="agent", candidates=(candidate,))
