"""Every parser over random and hostile input: only its own error, quickly, never a crash.

"Hostile" means valid payloads with one part swapped for something else (a wrong type,
a huge or negative number, a lone surrogate, deep nesting), and raw bytes and text that
are not JSON at all. Each parser — the three wire formats, the new-review form's facts,
the dataset's JSONL lines and the annotation JSONL import — may refuse input only with
the error its callers handle (FormatError, ImportFormatError, DatasetError,
ImportProblems); anything else would be a 500.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grounding_app.common.importing import ImportProblems, parse_jsonl
from grounding_app.engine import CheckRequest, Fact
from grounding_app.formats import _reader as reader
from grounding_app.formats.agent import parse_agent
from grounding_app.formats.check_grounding import (
    FormatError,
    decode_json_body,
    parse_check_request,
)
from grounding_app.formats.check_grounding_response import grounded_from_check_json
from grounding_app.formats.gemini import parse_gemini
from grounding_app.formats.grounding_jsonl import DatasetError, parse_example
from grounding_app.formats.imports import ImportFormatError, detect_and_parse
from grounding_app.rendering.answer import render_answer
from tests.security.strategies import (
    VALID_REQUEST,
    dumps,
    encodable,
    escaped,
    json_values,
    mutated,
)

DATASET_LINE = {
    "id": "x1",
    "facts": [{"text": "T is the capital of O", "attributes": {"a": "b"}}],
    "claim": "T is the capital of O.",
    "label": 1,
    "source": "s",
}
FUZZ = settings(
    max_examples=200,
    deadline=5_000,  # milliseconds: a hang, not a slow machine
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


def only(error: type[Exception], call: Callable[[], object]) -> None:
    started = time.monotonic()
    with contextlib.suppress(error):
        call()
    assert time.monotonic() - started < 5


@FUZZ
@given(st.one_of(st.binary(max_size=300), json_values.map(escaped).map(str.encode)))
def test_check_request_body(raw: bytes) -> None:
    only(FormatError, lambda: parse_check_request(decode_json_body(raw)))


@FUZZ
@given(mutated([VALID_REQUEST]))
def test_check_request_mutations(data: Any) -> None:
    only(FormatError, lambda: parse_check_request(data))
    if encodable(data):
        only(FormatError, lambda: parse_check_request(decode_json_body(dumps(data).encode())))


@FUZZ
@given(st.one_of(mutated(), json_values))
def test_gemini_agent_and_check_response_readers(data: Any) -> None:
    request = CheckRequest("Titanic was directed by James Cameron.", (Fact("Titanic", {}),))

    def read_and_render(read: Callable[[], Any]) -> Callable[[], None]:
        return lambda: render_answer(read())

    only(ImportFormatError, read_and_render(lambda: parse_gemini(data)))
    only(ImportFormatError, read_and_render(lambda: parse_agent(data)))
    only(ImportFormatError, read_and_render(lambda: grounded_from_check_json(request, data)))


@FUZZ
@given(
    st.one_of(
        mutated().filter(encodable).map(dumps),
        json_values.map(escaped),
        st.text(max_size=300),
        st.binary(max_size=300),
    )
)
def test_imports(raw: str | bytes) -> None:
    def parse_and_render() -> None:
        result = detect_and_parse(raw)
        if result.grounded is not None:
            render_answer(result.grounded)

    only(ImportFormatError, parse_and_render)


@FUZZ
@given(
    st.one_of(
        st.text(max_size=300),
        json_values.map(escaped),
        mutated([DATASET_LINE]).filter(encodable).map(dumps),
    )
)
def test_dataset_lines(line: str) -> None:
    only(DatasetError, lambda: parse_example(line, "fuzz:1"))


@pytest.mark.django_db
@FUZZ
@given(
    answer=st.text(max_size=200),
    threshold=st.one_of(st.text(max_size=8), st.floats().map(str)),
    facts_json=st.one_of(
        st.text(max_size=200),
        json_values.filter(encodable).map(dumps),
        mutated([VALID_REQUEST["facts"]]).filter(encodable).map(dumps),
    ),
    rows=st.dictionaries(
        st.from_regex(r"fact-\d{1,5}-(text|key-\d{1,4}|value-\d{1,4})", fullmatch=True),
        st.text(max_size=30),
        max_size=8,
    ),
)
def test_new_review_form(answer: str, threshold: str, facts_json: str, rows: dict) -> None:
    from grounding_app.reviews.forms import NewReviewForm

    data = {"answer": answer, "citation_threshold": threshold, "facts_json": facts_json, **rows}
    started = time.monotonic()
    form = NewReviewForm(data)
    if form.is_valid():
        assert isinstance(form.cleaned_data["request"], CheckRequest)
    assert time.monotonic() - started < 5


@pytest.mark.parametrize(
    "raw",
    [
        "[" * 200_000 + "]" * 200_000,
        '{"a":' * 100_000 + "1" + "}" * 100_000,
        "1" * 5_000,
        '{"answerCandidate": "' + "a. " * 200_000 + '"}',
        '{"answerCandidate": "x", "facts": [' + ",".join(['{"factText": "y"}'] * 5_000) + "]}",
        '"\\ud800"',
        "\ufeff{}",
    ],
    ids=[
        "deep-array",
        "deep-object",
        "huge-int",
        "many-sentences",
        "many-facts",
        "surrogate",
        "bom",
    ],
)
def test_pathological_inputs_end_quickly(raw: str) -> None:
    only(FormatError, lambda: parse_check_request(decode_json_body(raw.encode())))
    only(ImportFormatError, lambda: detect_and_parse(raw))
    only(DatasetError, lambda: parse_example(raw, "fuzz:1"))
    only(ImportProblems, lambda: parse_jsonl(raw))


@FUZZ
@given(
    st.lists(
        st.one_of(
            mutated().filter(encodable).map(dumps),
            mutated([DATASET_LINE]).filter(encodable).map(dumps),
            json_values.map(escaped),
            st.text(max_size=100),
        ),
        min_size=1,
        max_size=4,
    ),
    st.booleans(),
)
def test_annotation_jsonl_imports(lines: list[str], as_bytes: bool) -> None:
    raw = "\n".join(lines)
    only(
        ImportProblems,
        lambda: parse_jsonl(raw.encode("utf-8", "surrogatepass") if as_bytes else raw),
    )


# Digits of every script, other numeric characters and blanks, mixed with what JSON
# numbers are made of: float() and int() take many such strings, proto3 JSON none.
_NUMBERISH = st.text(
    st.one_of(
        st.characters(categories=["Nd", "No", "Zs"]),
        st.sampled_from("0123456789.eE+-_ \t\n"),
    ),
    max_size=8,
)


def _read_as_number(read: Callable[[], object]) -> bool:
    """Whether `read` took its string as a number (a range error still counts as taken)."""
    try:
        read()
    except FormatError as exc:
        return "got the string" not in exc.message
    return True


@FUZZ
@given(_NUMBERISH)
def test_numbers_in_strings_are_ascii_json_numbers(raw: str) -> None:
    readers = (
        lambda: parse_check_request({"groundingSpec": {"citationThreshold": raw}}),
        lambda: reader.number("f", raw),
        lambda: reader.integer("f", raw),
    )
    for read in readers:
        if _read_as_number(read):
            assert raw.isascii() and raw == raw.strip() and "_" not in raw, raw
