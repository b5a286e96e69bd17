"""Import detection and decoding, and properties: only ImportFormatError, never a bad span."""

from __future__ import annotations

import copy
import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grounding_app.formats.grounded import GroundedAnswer
from grounding_app.formats.imports import (
    MAX_DEPTH,
    MAX_IMPORT_ANSWER_BYTES,
    MAX_IMPORT_BYTES,
    MAX_IMPORT_SEGMENTS,
    ImportFormatError,
    ImportResult,
    decode_import,
    detect_and_parse,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "imports"
ALL_FIXTURES = sorted(path.name for path in FIXTURES.glob("*.json"))
PAIR = json.loads((FIXTURES / "check_grounding_pair.json").read_text(encoding="utf-8"))


def load(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


def assert_spans_sound(grounded: GroundedAnswer | None) -> None:
    """Every placed segment lies on character boundaries inside its part and holds its text."""
    if grounded is None:
        return
    for candidate in grounded.candidates:
        for segment in candidate.segments:
            data = candidate.parts[segment.part].encode()
            assert 0 <= segment.start <= segment.end <= len(data)
            found = data[segment.start : segment.end].decode()  # raises if cut mid-character
            assert not segment.text or found == segment.text
            assert all(0 <= i < len(candidate.sources) for i in segment.source_indices)


# --- detection -------------------------------------------------------------------------


@pytest.mark.parametrize("name", ALL_FIXTURES)
def test_every_fixture_is_detected(name: str):
    kind = name.split("_")[0].replace("check", "check_grounding")
    raw = (FIXTURES / name).read_bytes()
    result = detect_and_parse(raw)
    assert result.kind == kind
    assert detect_and_parse(raw.decode()) == result  # text and bytes read the same
    assert detect_and_parse(b"\xef\xbb\xbf" + raw) == result  # a byte-order mark is fine
    assert_spans_sound(result.grounded)
    if result.grounded is not None:
        assert all(candidate.problems == () for candidate in result.grounded.candidates)


def test_pair_gives_request_and_grounded():
    result = detect_and_parse(json.dumps(PAIR))
    assert result.request is not None
    assert result.request.answer == PAIR["request"]["answerCandidate"]
    assert result.request.enable_claim_level_score is True
    assert result.grounded is not None
    assert result.grounded.candidates[0].parts == (result.request.answer,)


@pytest.mark.parametrize(
    "pair", [{"request": PAIR["request"]}, {"request": PAIR["request"], "response": None}]
)
def test_pair_without_response(pair: dict[str, Any]):
    result = detect_and_parse(json.dumps(pair))
    assert result.kind == "check_grounding"
    assert result.grounded is None
    assert result.request is not None


def test_bare_request():
    result = detect_and_parse((FIXTURES / "check_grounding_request.json").read_text())
    assert result == ImportResult("check_grounding", grounded=None, request=result.request)
    assert result.request is not None and result.request.answer.startswith("Titanic")


def test_pair_errors_name_request_fields():
    pair = copy.deepcopy(PAIR)
    pair["request"]["facts"][1]["factText"] = 7
    with pytest.raises(ImportFormatError) as caught:
        detect_and_parse(json.dumps(pair))
    assert caught.value.field == "request.facts[1].factText"


def test_pair_response_errors_name_response_fields():
    pair = copy.deepcopy(PAIR)
    pair["response"]["claims"][2]["endPos"] = "end"
    with pytest.raises(ImportFormatError) as caught:
        detect_and_parse(json.dumps(pair))
    assert caught.value.field == "response.claims[2].endPos"


def test_pair_bad_offsets_are_problems():
    pair = copy.deepcopy(PAIR)
    pair["response"]["claims"][1]["endPos"] = 999
    result = detect_and_parse(json.dumps(pair))
    assert result.grounded is not None
    (candidate,) = result.grounded.candidates
    assert len(candidate.segments) == 2
    assert candidate.problems[0].field == "response.claims[1].endPos"


def test_bare_request_errors_name_fields():
    with pytest.raises(ImportFormatError) as caught:
        detect_and_parse('{"answerCandidate": "x", "facts": [{"factText": "a", "bogus": 1}]}')
    assert caught.value.field == "facts[0].bogus"


@pytest.mark.parametrize(
    ("raw", "field", "message"),
    [
        ('"just a string"', "", "got a string"),
        ("42", "", "got a number"),
        ("null", "", "got null"),
        ("[]", "", "the array is empty"),
        ("{}", "", "unknown shape"),
        ('{"text": "hello"}', "", "unknown shape"),
        ('[{"candidates": []}, {"candidates": []}]', "", "streamed"),
        ('{"claims": [], "supportScore": 1}', "", "cannot be shown"),
        ('{"answerCandidate": "a", "claims": []}', "", "mixes request and response"),
        ('{"candidates": [], "facts": []}', "", "ambiguous"),
        ('{"citations": {}}', "", "wrap this object"),
        ('{"request": {}, "respone": {}}', "respone", "unknown key"),
        ('{"request": null}', "request", "missing"),
        ('{"request": []}', "request", "expected an object"),
        ('{"request": {"answerCandidate": 1}}', "request.answerCandidate", "expected a string"),
        ('{"request": {"answerCandidate": "a"}, "response": []}', "response", "expected an object"),
        ("[1, 2]", "[0]", "expected an object"),
        ('[{"text": 5}]', "[0].text", "expected a string"),
        (
            '{"candidates": [{"content": {"parts": [{"text": 5}]}}]}',
            "candidates[0].content.parts[0].text",
            "string",
        ),
    ],
)
def test_shape_errors(raw: str, field: str, message: str):
    with pytest.raises(ImportFormatError) as caught:
        detect_and_parse(raw)
    assert caught.value.field == field
    assert message in caught.value.message


def test_snake_case_detection():
    data = {"candidates": [{"grounding_metadata": {}, "content": {"parts": [{"text": "x"}]}}]}
    assert detect_and_parse(json.dumps(data)).kind == "gemini"
    assert detect_and_parse('{"answer_candidate": "x"}').kind == "check_grounding"


# --- decoding -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "field", "message"),
    [
        (b'{"a": "\xff"}', "", "not UTF-8: byte 7"),
        (b'{"a": "\xed\xa0\x80"}', "", "not UTF-8"),  # an encoded surrogate
        ('{"a": "\ud800"}', "", "lone surrogate at character 7"),
        (
            '{"candidates": [{"content": {"parts": [{"text": "\\ud800"}]}}]}',
            "candidates[0].content.parts[0].text",
            "lone surrogate",
        ),
        ('{"b": {"\\udfff": 1}}', "b", "a key holds a lone surrogate"),
        ('{"a": "x\\u0000y"}', "a", "null character (U+0000)"),
        ('{"a": ["\\u0000"]}', "a[0]", "null character"),
        ('{"b": {"a\\u0000": 1}}', "b", "a key holds a null character"),
        ("", "", "empty"),
        ("  \n ", "", "empty"),
        ('{"candidates": [}', "", "line 1 column 17"),
        ('{\n  "candidates": [\n    1,\n  ]\n}', "", "line 4 column 3"),
        ('{"a": 1, "a": 2}', "", "appears twice"),
        ('{"a": NaN}', "", "NaN is not JSON"),
        ('{"a": -Infinity}', "", "-Infinity is not JSON"),
        ('{"a": ' + "9" * 5000 + "}", "", "not valid JSON"),
        ("[" * 100_000 + "]" * 100_000, "", "nested deeper"),
    ],
)
def test_decode_errors(raw: str | bytes, field: str, message: str):
    with pytest.raises(ImportFormatError) as caught:
        detect_and_parse(raw)
    assert caught.value.field == field
    assert message in caught.value.message


def test_an_escaped_backslash_before_u0000_is_not_a_null_character():
    assert decode_import('{"a": "\\\\u0000"}') == {"a": "\\u0000"}


def test_nesting_limit_names_the_path():
    deep: Any = "x"
    for _ in range(MAX_DEPTH):
        deep = [deep]
    data = [{"text": "hi", "extra": deep}]
    with pytest.raises(ImportFormatError) as caught:
        detect_and_parse(json.dumps(data))
    assert caught.value.field.startswith("[0].extra[0][0]")
    assert "nested deeper than 64" in caught.value.message
    shallow = [{"text": "hi", "extra": [[["x"]]]}]
    assert detect_and_parse(json.dumps(shallow)).kind == "agent"


def test_size_limit():
    padding = " " * (MAX_IMPORT_BYTES - 20)
    ok = '[{"text": "hi"}]' + padding
    assert detect_and_parse(ok.encode()).kind == "agent"
    too_big = ok + " " * 10
    for raw in (too_big, too_big.encode()):
        with pytest.raises(ImportFormatError, match="bytes"):
            detect_and_parse(raw)
    # under the limit in characters but over it in UTF-8 bytes
    multibyte = '[{"text": "' + "ש" * (MAX_IMPORT_BYTES // 2) + '"}]'
    with pytest.raises(ImportFormatError, match="bytes of UTF-8"):
        detect_and_parse(multibyte)


def test_not_text():
    with pytest.raises(ImportFormatError, match="expected text or bytes"):
        detect_and_parse(12)  # type: ignore[arg-type]


# --- properties ---------------------------------------------------------------------------

FAST = settings(
    max_examples=300,
    deadline=timedelta(seconds=2),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

KEYS = st.sampled_from(
    [
        "candidates",
        "content",
        "parts",
        "text",
        "groundingMetadata",
        "grounding_metadata",
        "groundingSupports",
        "segment",
        "startIndex",
        "endIndex",
        "partIndex",
        "groundingChunks",
        "web",
        "retrievedContext",
        "uri",
        "title",
        "groundingChunkIndices",
        "confidenceScores",
        "searchEntryPoint",
        "renderedContent",
        "webSearchQueries",
        "request",
        "response",
        "answerCandidate",
        "facts",
        "factText",
        "claims",
        "startPos",
        "endPos",
        "claimText",
        "citationIndices",
        "citedChunks",
        "source",
        "supportScore",
        "citations",
        "inlineCitations",
        "citedChunkIndices",
        "requiresAttribution",
        "googleSearchSuggestions",
        "htmls",
        "query",
    ]
) | st.text(max_size=8)

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(KEYS, children, max_size=5),
    max_leaves=40,
)


def parse_or_format_error(raw: str | bytes) -> ImportResult | None:
    try:
        result = detect_and_parse(raw)
    except ImportFormatError as exc:
        assert isinstance(exc.field, str) and exc.message
        return None
    assert_spans_sound(result.grounded)
    return result


@FAST
@given(st.text(max_size=200))
def test_any_text(raw: str):
    parse_or_format_error(raw)


@FAST
@given(st.binary(max_size=200))
def test_any_bytes(raw: bytes):
    parse_or_format_error(raw)


@FAST
@given(JSON)
def test_any_json(data: Any):
    parse_or_format_error(json.dumps(data))


def _locations(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Paths to every value inside `value` (not the root)."""
    found = []
    if isinstance(value, dict):
        items = list(value.items())
    elif isinstance(value, list):
        items = list(enumerate(value))
    else:
        return []
    for key, item in items:
        found.append((*path, key))
        found.extend(_locations(item, (*path, key)))
    return found


FIXTURE_DATA = {name: load(name) for name in ALL_FIXTURES}
MUTATIONS = st.sampled_from(["drop", "replace", "offset", "offset", "null", "stringify"])


@FAST
@given(st.sampled_from(ALL_FIXTURES), st.data())
def test_mutated_fixtures(name: str, data: st.DataObject):
    document = copy.deepcopy(FIXTURE_DATA[name])
    for _ in range(data.draw(st.integers(1, 4))):
        locations = _locations(document)
        if not locations:
            break
        path = data.draw(st.sampled_from(locations))
        parent = document
        for key in path[:-1]:
            parent = parent[key]
        key = path[-1]
        mutation = data.draw(MUTATIONS)
        if mutation == "drop":
            del parent[key]
        elif mutation == "replace":
            parent[key] = data.draw(JSON)
        elif mutation == "offset":
            parent[key] = data.draw(st.integers(-5, 400))
        elif mutation == "null":
            parent[key] = None
        else:
            parent[key] = json.dumps(parent[key])
    parse_or_format_error(json.dumps(document, ensure_ascii=data.draw(st.booleans())))


@FAST
@given(st.data())
def test_random_offsets_are_placed_soundly_or_reported(data: st.DataObject):
    """Whatever the offsets, a segment is either placed on sound bytes or reported."""
    document = copy.deepcopy(FIXTURE_DATA["gemini_emoji.json"])
    supports = document["candidates"][0]["groundingMetadata"]["groundingSupports"]
    for support in supports:
        segment = support["segment"]
        segment["startIndex"] = data.draw(st.integers(-2, 100))
        segment["endIndex"] = data.draw(st.integers(-2, 100))
        if data.draw(st.booleans()):
            segment.pop("text")
    result = parse_or_format_error(json.dumps(document))
    assert result is not None and result.grounded is not None
    (candidate,) = result.grounded.candidates
    assert len(candidate.segments) + len(candidate.problems) == len(supports)


# --- how much answer an import may hold (issue 25 item 13) ----------------------------------


def _gemini_answer(size: int, parts: int = 1, candidates: int = 1) -> str:
    """A Gemini response whose answer text is `size` UTF-8 bytes, split over parts and
    candidates."""
    each = size // (parts * candidates)
    text = ("Spain won. " * (each // 11 + 1))[:each]
    data = load("gemini_web_search.json")
    candidate = data["candidates"][0]
    candidate["content"]["parts"] = [{"text": text} for _ in range(parts)]
    candidate["groundingMetadata"]["groundingSupports"] = []
    data["candidates"] = [copy.deepcopy(candidate) for _ in range(candidates)]
    return json.dumps(data)


@pytest.mark.parametrize(("parts", "candidates"), [(1, 1), (4, 1), (2, 2)])
def test_an_import_holds_at_most_the_answer_bound(parts: int, candidates: int) -> None:
    assert detect_and_parse(_gemini_answer(MAX_IMPORT_ANSWER_BYTES, parts, candidates))
    with pytest.raises(ImportFormatError) as caught:
        detect_and_parse(_gemini_answer(MAX_IMPORT_ANSWER_BYTES + 4 * 11, parts, candidates))
    assert caught.value.field == ""
    assert f"at most {MAX_IMPORT_ANSWER_BYTES:,} bytes" in caught.value.message


def test_the_answer_bound_counts_bytes_not_characters() -> None:
    data = load("agent_session_output.json")
    answer = "אב" * (MAX_IMPORT_ANSWER_BYTES // 4 + 1)  # 2 bytes a letter: over the bound
    with pytest.raises(ImportFormatError, match="bytes of text"):
        detect_and_parse(json.dumps([{"text": answer}, *data[1:]]))


def _gemini_supports(count: int) -> str:
    """A Gemini response whose answer has `count` one-byte grounding supports."""
    data = load("gemini_web_search.json")
    candidate = data["candidates"][0]
    candidate["content"]["parts"] = [{"text": "x" * count}]
    candidate["groundingMetadata"]["groundingSupports"] = [
        {"segment": {"startIndex": i, "endIndex": i + 1}, "groundingChunkIndices": [0]}
        for i in range(count)
    ]
    return json.dumps(data)


def test_an_import_holds_at_most_the_segment_bound() -> None:
    """A 256 KiB answer could carry 100,000 one-byte segments, each a claim row on the
    page; no more than the check API could give for one answer (one per token)."""
    result = detect_and_parse(_gemini_supports(MAX_IMPORT_SEGMENTS))
    assert result.grounded is not None
    assert len(result.grounded.candidates[0].segments) == MAX_IMPORT_SEGMENTS
    with pytest.raises(ImportFormatError) as caught:
        detect_and_parse(_gemini_supports(MAX_IMPORT_SEGMENTS + 1))
    assert f"at most {MAX_IMPORT_SEGMENTS:,} cited segments" in caught.value.message


def test_a_response_holds_at_most_the_segment_bound() -> None:
    data = copy.deepcopy(PAIR)
    claim = dict(data["response"]["claims"][0])
    data["response"]["claims"] = [claim] * MAX_IMPORT_SEGMENTS
    assert detect_and_parse(json.dumps(data)).grounded is not None
    data["response"]["claims"].append(claim)
    with pytest.raises(ImportFormatError, match="cited segments"):
        detect_and_parse(json.dumps(data))
