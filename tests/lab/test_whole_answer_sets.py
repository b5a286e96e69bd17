"""Whole-answer sets: a summary's labelled sentences kept together, with byte spans."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from grounding_lab.whole_answers import SETS, build, build_set, main, read_whole_answers

FACT = {"text": "speaker a: the café opened in may.\nspeaker b: it sells tea.", "attributes": {}}
OTHER_FACT = {"text": "speaker c: the budget was cut.", "attributes": {"doc_id": "d2"}}


def row(id: str, claim: str, label: int, index: int | None = None, **extra: Any) -> dict[str, Any]:
    meta: dict[str, Any] = {"granularity": "summary" if index is None else "sentence"}
    if index is not None:
        meta["sentence_index"] = index
    return {
        "id": f"diasumfact_qmsum:{id}",
        "source": extra.get("source", "diasumfact_qmsum"),
        "facts": [extra.get("fact", FACT)],
        "claim": claim,
        "label": label,
        "meta": meta,
    }


ROWS = [
    # Exactly its sentences joined by a space; a two-byte character before the second.
    row("0-1-bart", "the café opened in may. it sells tea.", 1),
    row("0-1-bart-s0", "the café opened in may.", 1, 0),
    row("0-1-bart-s1", "it sells tea.", 1, 1),
    # The middle sentence's row was dropped: it stays in the answer, unlabelled.
    row("0-1-pegasus", "the café opened. it sells coffee. it opened in june.", 0),
    row("0-1-pegasus-s2", "it opened in june.", 0, 2),
    row("0-1-pegasus-s0", "the café opened.", 1, 0),
    # A one-sentence summary whose summary row was dropped as a copy of its sentence.
    row("1-0-bart-s0", "the budget was cut.", 1, 0, fact=OTHER_FACT),
    # A summary row cut short: the labelled sentences are joined instead.
    row("1-0-led", "the budget was cut. it was cut by ha", 0, fact=OTHER_FACT),
    row("1-0-led-s0", "the budget was cut.", 1, 0, fact=OTHER_FACT),
    row("1-0-led-s1", "it was cut by half.", 0, 1, fact=OTHER_FACT),
    # No labelled sentence: no answer.
    row("2-0-bart", "nothing is labelled here.", 1),
    # Another source is left out.
    row("0-1-x-s0", "the café opened in may.", 1, 0, source="frank"),
]


def encoded_span(answer: str, start: int, end: int) -> str:
    return answer.encode("utf-8")[start:end].decode("utf-8")


def test_sentences_joined_by_the_summary_with_byte_spans() -> None:
    answers = {a.id: a for a in build_set(ROWS, "diasumfact_qmsum")}
    assert sorted(answers) == [
        "diasumfact_qmsum:0-1-bart",
        "diasumfact_qmsum:0-1-pegasus",
        "diasumfact_qmsum:1-0-bart",
        "diasumfact_qmsum:1-0-led",
    ]
    bart = answers["diasumfact_qmsum:0-1-bart"]
    assert (bart.answer_from, bart.answer) == ("summary", "the café opened in may. it sells tea.")
    assert [(s.start, s.end, s.label) for s in bart.sentences] == [(0, 24, 1), (25, 38, 1)]
    for answer in answers.values():
        for sentence in answer.sentences:
            assert encoded_span(answer.answer, sentence.start, sentence.end) == sentence.text


def test_a_dropped_sentence_stays_as_context_and_a_cut_summary_gives_way() -> None:
    answers = {a.id: a for a in build_set(ROWS, "diasumfact_qmsum")}
    pegasus = answers["diasumfact_qmsum:0-1-pegasus"]
    assert pegasus.answer_from == "summary"
    assert [s.text for s in pegasus.sentences] == ["the café opened.", "it opened in june."]
    assert [s.label for s in pegasus.sentences] == [1, 0]
    led = answers["diasumfact_qmsum:1-0-led"]
    assert (led.answer_from, led.answer) == ("sentences", "the budget was cut. it was cut by half.")
    single = answers["diasumfact_qmsum:1-0-bart"]
    assert (single.answer_from, single.answer) == ("sentences", "the budget was cut.")


def test_halves_go_by_document() -> None:
    answers = {a.id: a for a in build_set(ROWS, "diasumfact_qmsum")}
    assert answers["diasumfact_qmsum:0-1-bart"].half == answers["diasumfact_qmsum:0-1-pegasus"].half
    assert {a.half for a in answers.values()} <= {"select", "report"}


def test_a_sentence_index_that_disagrees_with_its_id_is_refused() -> None:
    with pytest.raises(ValueError, match="sentence_index"):
        build_set([row("0-1-bart-s0", "x.", 1, 3)], "diasumfact_qmsum")


def write(path: Path, rows: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def test_build_writes_each_set_deterministically(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    write(data / "fit_unseen.jsonl", ROWS)
    write(data / "train.jsonl", [{**r, "source": "frank"} for r in ROWS[:3]])
    main(["build", "--data", str(data), "--out", str(tmp_path / "a")])
    assert "answers 4, from_summary 2, sentences 7, supported 5, unsupported 2" in (
        capsys.readouterr().out
    )
    build(data, tmp_path / "b")
    for name in SETS:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    frank_answers = read_whole_answers(tmp_path / "a" / "frank.jsonl")
    assert [(a.source, len(a.sentences)) for a in frank_answers] == [("frank", 2)]
    again = read_whole_answers(tmp_path / "a" / "diasumfact_qmsum.jsonl")
    assert again == build_set(ROWS, "diasumfact_qmsum")
