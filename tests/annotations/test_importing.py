"""JSONL lines of four shapes become items; the engine's claims carry exact byte spans."""

from __future__ import annotations

import json

import pytest

from grounding_app.common import importing
from grounding_app.common.importing import ImportProblems, check_item, parse_jsonl
from grounding_app.engine import GroundingEngine, slice_bytes
from tests.annotations.conftest import FILM_FACTS, grounding_line
from tests.reviews.conftest import fixture_text


def _one_line(name: str) -> str:
    return json.dumps(json.loads(fixture_text(name)))


def test_grounding_schema_lines_keep_id_source_and_reference_label() -> None:
    items = parse_jsonl(grounding_line(7, "Titanic was directed by James Cameron.", 0) + "\n\n")
    assert len(items) == 1
    item = items[0]
    assert (item.external_id, item.source, item.meta) == ("ex-7", "film", {"reference_label": 0})
    assert item.answer == "Titanic was directed by James Cameron."
    assert item.facts[1].attributes["author"] == "Rotten Tomatoes"


@pytest.mark.parametrize(
    ("fixture", "kind"),
    [
        ("check_grounding_request.json", "check_grounding"),
        ("check_grounding_pair.json", "check_grounding"),
        ("gemini_web_search.json", "gemini"),
        ("agent_session_output.json", "agent"),
    ],
)
def test_wire_format_lines(fixture: str, kind: str) -> None:
    (item,) = parse_jsonl(_one_line(fixture))
    assert item.source == kind
    assert item.answer.strip()
    if kind != "check_grounding":  # sources stand in for facts
        assert item.facts and all(f.text for f in item.facts)


def test_every_bad_line_is_reported_and_nothing_is_returned() -> None:
    lines = [
        grounding_line(1, "Fine."),
        "{not json",
        json.dumps({"claim": 3, "facts": []}),
        json.dumps({"answerCandidate": "", "facts": []}),
        json.dumps({"id": "x", "facts": [{"text": "a" * 10_001}], "claim": "Too long."}),
        json.dumps({"claim": "\ud800", "facts": []}),
        "[]",
    ]
    with pytest.raises(ImportProblems) as caught:
        parse_jsonl("\n".join(lines))
    problems = caught.value.problems
    assert [p.split(":")[0] for p in problems] == [f"line {n}" for n in range(2, 8)]
    assert "at most 10000 characters" in problems[3]
    assert "empty" in problems[2]


def test_empty_and_oversized_uploads() -> None:
    with pytest.raises(ImportProblems, match="no items"):
        parse_jsonl("\n \n")
    with pytest.raises(ImportProblems, match="not UTF-8"):
        parse_jsonl(b"\xff\xfe")


def test_item_count_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importing, "MAX_IMPORT_ITEMS", 2)
    with pytest.raises(ImportProblems, match="at most 2"):
        parse_jsonl("\n".join(grounding_line(n, "A claim.") for n in range(3)))


def test_bom_is_ignored() -> None:
    assert len(parse_jsonl("\ufeff" + grounding_line(1, "A claim."))) == 1


def test_engine_claims_have_utf8_byte_spans(fake_engine: GroundingEngine) -> None:
    answer = "Here is what I found. ירושלים היא בירת ישראל. Pizza 🍕 was born in Naples."
    source = importing.ItemSource(answer, (importing.Fact("Pizza was born in Naples."),))
    checked = check_item(source, fake_engine.check)
    assert [c.text for c in checked.claims] == [
        "Here is what I found.",
        "ירושלים היא בירת ישראל.",
        "Pizza 🍕 was born in Naples.",
    ]
    for claim in checked.claims:
        assert slice_bytes(answer, claim.start, claim.end) == claim.text
    first, second, third = checked.claims
    assert (first.check_required, first.verdict, first.score) == (False, "no_check", None)
    assert second.check_required and second.score is not None
    assert third.verdict in {"supported", "unsupported"}
    assert set(third.cited_facts) <= {0}


def test_model_cites_fact_indices(fake_engine: GroundingEngine) -> None:
    facts = tuple(importing.Fact(f["text"], f["attributes"]) for f in FILM_FACTS)
    # A sentence of fact 0 itself: the fake judge's verdict must not hinge on fact 1.
    answer = "Titanic is a 1997 American epic romantic disaster movie."
    checked = check_item(importing.ItemSource(answer, facts), fake_engine.check)
    (claim,) = checked.claims
    assert claim.verdict == "supported"
    assert 0 in claim.cited_facts and set(claim.cited_facts) <= {0, 1}
    assert list(claim.cited_facts) == sorted(claim.cited_facts)
