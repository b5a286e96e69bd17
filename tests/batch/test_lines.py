"""Parsing one line of each accepted shape, and checking it (no Django database)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grounding_app.batch.lines import LineError, check, parse, request_for
from grounding_app.engine import GroundingEngine
from tests.batch.conftest import grounding_line

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "imports"


def _one_line(name: str) -> str:
    return json.dumps(json.loads((FIXTURES / name).read_text(encoding="utf-8")))


def test_a_grounding_schema_line_keeps_its_id_source_and_meta() -> None:
    data = json.loads(grounding_line(3))
    data["meta"] = {"model": "m-7", "nested": {"no": 1}}
    parsed = parse(json.dumps(data), 4)
    assert parsed.item.external_id == "ex-3"
    assert parsed.item.answer.startswith("Item 3 was made")
    assert parsed.labels == {"format": "grounding", "source": "news", "model": "m-7"}


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("check_grounding_request.json", "check_grounding"),
        ("check_grounding_pair.json", "check_grounding"),
        ("gemini_web_search.json", "gemini"),
        ("agent_session_output.json", "agent"),
    ],
)
def test_every_import_shape_is_a_line(name: str, kind: str) -> None:
    parsed = parse(_one_line(name), 1)
    assert parsed.labels["format"] == kind
    assert parsed.item.answer and parsed.item.facts


def test_user_labels_of_a_request_are_metadata() -> None:
    data = json.loads(_one_line("check_grounding_request.json"))
    data["userLabels"] = {"team": "search", "format": "not-overwritten"}
    assert parse(json.dumps(data), 1).labels == {"format": "check_grounding", "team": "search"}


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", "line 7: not valid JSON"),
        ("[]", "line 7: the array is empty"),
        ('{"claim": "x", "facts": 3}', "line 7: 'facts' must be a list"),
        ('{"answerCandidate": "", "facts": []}', "line 7: answerCandidate"),
    ],
)
def test_a_bad_line_names_its_number(line: str, message: str) -> None:
    with pytest.raises(LineError) as caught:
        parse(line, 7)
    assert str(caught.value).startswith(message)


def test_check_gives_the_review_shape(fake_engine: GroundingEngine) -> None:
    item = parse(grounding_line(2, supported=False), 1).item
    outcome = check(item, 0.6)
    assert outcome.summary == "unsupported"
    assert outcome.claim_count == outcome.unsupported_count == 1
    assert outcome.result["format"] == "check_grounding"


def test_sources_without_text_are_not_judged_on(fake_engine: GroundingEngine) -> None:
    """A Gemini web chunk has a title and a link but no text: it is left out of the
    check, and a claim the other facts do not support gets no verdict and no score."""
    item = parse(_one_line("gemini_web_search.json"), 1).item
    assert item.meta["facts_without_text"]
    request = request_for(item, 0.6)
    assert len(request.facts) == len(item.facts) - len(item.meta["facts_without_text"])
    outcome = check(item, 0.6)
    verdicts = {s["verdict"] for s in outcome.result["candidates"][0]["segments"]}
    assert "unsupported" not in verdicts and outcome.unsupported_count == 0
    assert outcome.support_score is None


@pytest.mark.parametrize(
    "line",
    [
        '{"id": "a", "facts": [{"text": "Sky is blue."}]}',
        '{"facts": [{"text": "Sky is blue."}]}',
        '{"id": "a", "source": "s", "facts": [{"text": "Sky."}], "answer": "Sky."}',
        '{"id": "a", "meta": {"model": "m"}, "facts": []}',
    ],
)
def test_a_line_without_claim_is_told_so(line: str) -> None:
    """Issue 25 item 6: such a line was reported as `id: Unknown name "id"`, the error of
    the check-grounding request it was then read as."""
    with pytest.raises(LineError) as caught:
        parse(line, 7)
    message = str(caught.value)
    assert message.startswith('line 7: no "claim"'), message
    assert "Unknown name" not in message


def test_a_request_with_an_unknown_field_keeps_the_api_message() -> None:
    line = '{"answerCandidate": "Sky.", "facts": [{"factText": "Sky."}], "id": "a"}'
    with pytest.raises(LineError, match='line 7: id: Unknown name "id"'):
        parse(line, 7)


def gemini_with_bad_offsets() -> str:
    data = json.loads(_one_line("gemini_web_search.json"))
    supports = data["candidates"][0]["groundingMetadata"]["groundingSupports"]
    supports[0]["segment"]["endIndex"] = 9999
    return json.dumps(data)


def test_a_gemini_line_with_offsets_out_of_range_is_warned_about() -> None:
    parsed = parse(gemini_with_bad_offsets(), 4)
    assert parsed.warning.startswith("line 4 (checked all the same): candidates[0].")
    assert "9999 is out of range" in parsed.warning
    assert parse(_one_line("gemini_web_search.json"), 4).warning == ""


def test_only_checked_claims_count(fake_engine: GroundingEngine) -> None:
    """The claim count is the denominator of the unsupported rate in trends and alerts: a
    heading, a greeting or a pointer shown beside the claims must not dilute it."""
    answer = (
        "## Camelot\n\nHi! Item 9 was painted blue by Morgan in Camelot.\n\n"
        "See the official site for details. Hope this helps!"
    )
    line = json.dumps({"claim": answer, "facts": [{"text": "Item 9 was made in Avalon."}]})
    outcome = check(parse(line, 1).item, 0.6)
    (candidate,) = outcome.result["candidates"]
    assert len(candidate["segments"]) == 5
    assert outcome.claim_count == outcome.unsupported_count == 1


def test_an_answer_whose_sources_have_no_text_is_not_checkable(
    fake_engine: GroundingEngine,
) -> None:
    """Issue 44, item 19: its claims were counted as checked with none unsupported, so
    the job's rates read it as an answer with 0 % unsupported."""
    outcome = check(parse(_one_line("gemini_web_search.json"), 1).item, 0.6)
    assert outcome.summary == "not_checkable"
    assert outcome.claim_count == outcome.unsupported_count == 0
