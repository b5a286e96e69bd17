"""`grounding_eval --whole-answers`: each answer as one request, each sentence alone."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from grounding_app.engine import CheckRequest, Fact, GroundingEngine
from grounding_lab.whole_answers import Sentence, WholeAnswer

FACTS = (
    Fact(
        "Titanic was directed by James Cameron. The film was released in 1997."
        " It won eleven Academy Awards."
    ),
)
TEXTS = (
    ("Titanic was directed by James Cameron.", 1),
    ("The ship sank in the North Atlantic.", 0),
    ("The film was released in 1997.", 1),
)


def answer(id: str, source: str, half: str, *texts: tuple[str, int]) -> WholeAnswer:
    sentences, position = [], 0
    for text, label in texts:
        sentences.append(Sentence(position, position + len(text.encode()), text, label))
        position += len(text.encode()) + 1
    return WholeAnswer(
        id, source, half, "summary", FACTS, " ".join(t for t, _ in texts), tuple(sentences)
    )


ANSWERS = [
    answer("a1", "films", "select", *TEXTS),
    answer("a2", "films", "report", TEXTS[2], TEXTS[1]),
    answer("b1", "news", "report", TEXTS[0]),
]


@pytest.fixture
def data(tmp_path: Path) -> Path:
    path = tmp_path / "whole.jsonl"
    path.write_text("".join(json.dumps(a.as_dict()) + "\n" for a in ANSWERS))
    return path


def run(data: Path, *extra: str) -> str:
    out = StringIO()
    call_command("grounding_eval", "--whole-answers", str(data), *extra, stdout=out)
    return out.getvalue()


def test_figures_per_source_and_half(fake_engine: GroundingEngine, data: Path) -> None:
    report = json.loads(run(data, "--json"))["whole.jsonl"]
    assert report["threshold"] == 0.6
    films = report["sources"]["films"]
    assert list(films) == ["select", "report", "all"]
    assert (films["all"]["answers"], films["all"]["sentences"]) == (2, 5)
    assert (films["all"]["supported"], films["all"]["unsupported"]) == (3, 2)
    assert set(films["all"]["whole"]) == {"balanced_accuracy", "roc_auc", "false_alarms", "recall"}
    assert list(report["sources"]["news"]) == ["report", "all"]


def test_predictions_hold_both_scores_of_each_sentence(
    fake_engine: GroundingEngine, data: Path, tmp_path: Path
) -> None:
    out = tmp_path / "pred.jsonl"
    run(data, "--json", "--predictions", str(out))
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(p["id"], p["sentence"], p["label"]) for p in lines] == [
        ("a1", 0, 1),
        ("a1", 1, 0),
        ("a1", 2, 1),
        ("a2", 0, 1),
        ("a2", 1, 0),
        ("b1", 0, 1),
    ]
    alone = fake_engine.check(CheckRequest(TEXTS[1][0], FACTS, enable_claim_level_score=True))
    assert lines[1]["score_alone"] == round(alone.weakest_score(), 6)
    assert lines[0]["claims_whole"] >= 1 and lines[0]["joined"] is False
    # A one-sentence answer is the same request both ways.
    assert lines[5]["score_whole"] == lines[5]["score_alone"]


def test_limit_and_per_source_pick_answers(fake_engine: GroundingEngine, data: Path) -> None:
    limited = json.loads(run(data, "--json", "--limit", "1"))["whole.jsonl"]["sources"]
    assert list(limited) == ["films"] and limited["films"]["all"]["answers"] == 1
    sampled = json.loads(run(data, "--json", "--per-source", "1"))["whole.jsonl"]["sources"]
    assert [s["all"]["answers"] for s in sampled.values()] == [1, 1]


def test_the_table_without_json(fake_engine: GroundingEngine, data: Path) -> None:
    lines = run(data).splitlines()
    assert lines[0] == "whole.jsonl"
    assert [line.split()[:2] for line in lines[3:]] == [
        ["films", "select"],
        ["films", "report"],
        ["films", "all"],
        ["news", "report"],
        ["news", "all"],
    ]


def test_errors_and_other_files_are_refused(fake_engine: GroundingEngine, data: Path) -> None:
    with pytest.raises(CommandError, match="--errors"):
        run(data, "--errors", "1")
    plain = data.parent / "plain.jsonl"
    plain.write_text(json.dumps({"id": "x", "facts": [], "claim": "c", "label": 1}) + "\n")
    with pytest.raises(CommandError, match="not a whole-answer set"):
        run(plain)
