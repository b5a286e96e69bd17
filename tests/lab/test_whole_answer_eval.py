"""Whole answers measured: a sentence's score in its answer and alone, and the figures."""

from __future__ import annotations

import re

import pytest

from grounding_app.engine import CheckRequest, CheckResponse, Claim, Fact
from grounding_lab.whole_answer_eval import (
    SentenceScore,
    covering_score,
    figures,
    format_table,
    score_answer,
)
from grounding_lab.whole_answers import Sentence, WholeAnswer


def claim(start: int, end: int, score: float | None, required: bool = True) -> Claim:
    return Claim(start, end, "x" * (end - start), required, score=score)


def response(*claims: Claim) -> CheckResponse:
    return CheckResponse(claims=claims, cited_chunks=(), support_score=None)


def test_a_sentence_split_in_two_scores_its_weakest_claim() -> None:
    split = response(claim(0, 5, 0.8), claim(6, 10, 0.4), claim(11, 20, 0.9))
    assert covering_score(split, 0, 10) == 0.4
    assert covering_score(split, 11, 20) == 0.9


def test_two_sentences_in_one_claim_share_its_score() -> None:
    joined = response(claim(0, 20, 0.3))
    assert covering_score(joined, 0, 10) == covering_score(joined, 11, 20) == 0.3


def test_a_sentence_no_checked_claim_covers_is_unchecked() -> None:
    partly = response(claim(0, 10, None, required=False), claim(11, 20, 0.7))
    assert covering_score(partly, 0, 10) is None
    assert covering_score(partly, 10, 11) is None  # the space between


def row(
    half: str, label: int, whole: float | None, alone: float | None, claims: int = 1
) -> SentenceScore:
    return SentenceScore("a", "s", half, 0, label, whole, alone, claims, joined=claims == 0)


# The hand-made table: scores in the answer and alone, at threshold 0.6.
TABLE = [
    row("select", 1, 0.9, 0.9),
    row("select", 1, 0.5, 0.8),  # a false alarm in the answer only
    row("select", 0, 0.3, 0.7),  # caught in the answer only
    row("select", 0, 0.7, 0.2),  # caught alone only
    row("report", 1, None, 0.95, claims=0),  # unchecked in the answer: 1.0, not flagged
    row("report", 0, 0.1, None, claims=2),  # unchecked alone: missed
]


def test_figures_per_half_in_the_answer_and_alone() -> None:
    found = figures(TABLE, 0.6)["s"]
    select = found["select"]
    assert (select["sentences"], select["supported"], select["unsupported"]) == (4, 2, 2)
    assert select["whole"] == {
        "balanced_accuracy": 0.5,
        "roc_auc": 0.75,
        "false_alarms": 0.5,
        "recall": 0.5,
    }
    assert select["alone"] == {
        "balanced_accuracy": 0.75,
        "roc_auc": 1.0,
        "false_alarms": 0.0,
        "recall": 0.5,
    }
    report = found["report"]
    assert (report["unchecked_whole"], report["unchecked_alone"]) == (1, 1)
    assert (report["split_whole"], report["joined_whole"]) == (1, 1)
    assert report["whole"] == {
        "balanced_accuracy": 1.0,
        "roc_auc": 1.0,
        "false_alarms": 0.0,
        "recall": 1.0,
    }
    assert report["alone"]["recall"] == 0.0 and report["alone"]["roc_auc"] == 0.0
    everything = found["all"]
    assert (everything["sentences"], everything["answers"]) == (6, 1)
    assert everything["whole"]["recall"] == pytest.approx(2 / 3)
    assert everything["alone"]["false_alarms"] == 0.0


def test_a_half_of_one_class_has_no_balanced_accuracy_or_auc() -> None:
    found = figures([row("select", 1, 0.9, 0.4)], 0.6)["s"]["select"]
    assert found["whole"]["balanced_accuracy"] is None and found["whole"]["roc_auc"] is None
    assert found["alone"]["false_alarms"] == 1.0 and found["alone"]["recall"] is None
    assert "report" not in figures([row("select", 1, 0.9, 0.4)], 0.6)["s"]


def test_the_table_has_a_line_per_half() -> None:
    table = format_table(figures(TABLE, 0.6), 0.6).splitlines()
    assert "false alarms <0.6 w/a" in table[0]
    assert [line.split()[:4] for line in table[2:]] == [
        ["s", "select", "4", "2/2"],
        ["s", "report", "2", "1/1"],
        ["s", "all", "6", "3/3"],
    ]
    assert "0.500 / 0.750" in table[2]  # BA in the answer / alone
    assert table[3].split()[4:6] == ["1/1", "1/1"]  # unchecked; split / joined


FACTS = (Fact("The tower is tall."),)


def fake_check(seen: list[CheckRequest]):
    """A claim per sentence; 'tall' is supported, and 'It' reads better in context."""

    def check(request: CheckRequest) -> CheckResponse:
        seen.append(request)
        claims = []
        for match in re.finditer(r"[^ .][^.]*\.", request.answer):
            text = match.group()
            start = len(request.answer[: match.start()].encode())
            score = 0.9 if "tall" in text else 0.2
            if text.startswith("It") and match.start() == 0:
                score = 0.5
            claims.append(Claim(start, start + len(text.encode()), text, True, score=score))
        return CheckResponse(claims=tuple(claims), cited_chunks=(), support_score=None)

    return check


def test_score_answer_makes_one_request_and_one_per_sentence() -> None:
    answer = WholeAnswer(
        id="w",
        source="s",
        half="select",
        answer_from="summary",
        facts=FACTS,
        answer="The café is tall. It is new.",
        sentences=(Sentence(0, 18, "The café is tall.", 1), Sentence(19, 29, "It is new.", 0)),
    )
    seen: list[CheckRequest] = []
    rows = score_answer(fake_check(seen), answer, 0.6)
    assert [r.answer for r in seen] == [answer.answer, "The café is tall.", "It is new."]
    assert all(r.facts == FACTS and r.enable_claim_level_score for r in seen)
    assert all(r.citation_threshold == 0.6 for r in seen)
    assert [(r.index, r.label, r.score_whole, r.score_alone) for r in rows] == [
        (0, 1, 0.9, 0.9),
        (1, 0, 0.2, 0.5),
    ]


def test_a_question_read_with_the_next_sentence_is_joined() -> None:
    text = "Is it tall? It is new. The café is tall."
    spans = ((0, 11, "Is it tall?", 0), (12, 22, "It is new.", 0), (23, 41, "The café is tall.", 1))
    answer = WholeAnswer(
        "w", "s", "report", "summary", FACTS, text, tuple(Sentence(*s) for s in spans)
    )
    rows = score_answer(fake_check([]), answer, 0.6)
    assert [(r.score_whole, r.score_alone, r.claims_whole, r.joined) for r in rows] == [
        (0.9, None, 1, True),  # no claim alone: unchecked
        (0.9, 0.5, 1, True),
        (0.9, 0.9, 1, False),
    ]
