"""Random and hostile JSON for the fuzz tests: random trees whose keys are often the
formats' own field names, and valid fixtures with parts swapped for such trees."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "imports"

# Field names of all three formats, so random objects often look almost right.
NAMES = (
    "answerCandidate answer_candidate facts factText fact_text attributes groundingSpec"
    " citationThreshold enableClaimLevelScore userLabels groundingConfig request response"
    " supportScore citedChunks citedFacts claims startPos endPos claimText citationIndices"
    " groundingCheckRequired score chunkText source sourceMetadata candidates content parts"
    " text groundingMetadata grounding_metadata webSearchQueries searchEntryPoint"
    " renderedContent groundingChunks web retrievedContext uri title domain"
    " groundingSupports segment partIndex startIndex endIndex groundingChunkIndices"
    " confidenceScores promptFeedback citations inlineCitations citedChunkIndices"
    " requiresAttribution googleSearchSuggestions htmls query id claim label"
).split()

numbers = st.one_of(
    st.integers(),
    st.integers(min_value=-(10**40), max_value=10**40),
    st.floats(allow_nan=False),
    st.sampled_from(["NaN", "Infinity", "-1", "1e999", "0x10", "1_000", " 3", "4.5"]),
)
strings = st.one_of(
    st.text(max_size=40),
    st.sampled_from(["", "\ud800", "a\udfffb", "\u202e", "\x00", "👩‍👩‍👧", "עברית"]),
    st.integers(1_000, 20_000).map(lambda n: "long " * n),
)
keys = st.one_of(st.sampled_from(NAMES), st.text(max_size=12))
json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), numbers, strings),
    lambda children: st.one_of(
        st.lists(children, max_size=6), st.dictionaries(keys, children, max_size=6)
    ),
    max_leaves=40,
)


def _fixtures() -> list[Any]:
    return [json.loads(path.read_text()) for path in sorted(FIXTURES.glob("*.json"))]


VALID = _fixtures()
VALID_REQUEST = json.loads((FIXTURES / "check_grounding_request.json").read_text())


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, (*prefix, index))
    return found


_REMOVE = object()  # a key to delete rather than replace


def _replaced(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return None if new is _REMOVE else new
    copy = json.loads(json.dumps(value))
    holder = copy
    for step in path[:-1]:
        holder = holder[step]
    if new is _REMOVE and isinstance(holder, dict):
        del holder[path[-1]]
    else:
        holder[path[-1]] = None if new is _REMOVE else new
    return copy


@st.composite
def mutated(draw: st.DrawFn, originals: list[Any] = VALID) -> Any:
    """A valid payload with one to three parts replaced, removed or deeply nested."""
    value = draw(st.sampled_from(originals))
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(_paths(value)))
        new = draw(
            st.one_of(
                json_values,
                st.just(_REMOVE),
                st.integers(1, 300).map(lambda depth: json.loads("[" * depth + "]" * depth)),
            )
        )
        value = _replaced(value, path, new)
    return value


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


def escaped(value: Any) -> str:
    """JSON text that is always encodable: lone surrogates become \\ud800 escapes and
    infinities bare Infinity, both of which the parsers must refuse."""
    return json.dumps(value)


def encodable(value: Any) -> bool:
    try:
        dumps(value).encode("utf-8")
    except (UnicodeEncodeError, ValueError):
        return False
    return True
