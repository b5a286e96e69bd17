"""The model card's figures are what the shipped files say, and the word-matching
judge's Hebrew figures are what it scores on dev_hebrew today."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grounding_app.engine import (
    DEFAULT_CITATION_THRESHOLD,
    WORD_MATCH_WEIGHTS,
    WordMatchJudge,
    profile,
)
from grounding_app.formats.grounding_jsonl import read_examples
from grounding_app.metrics import balanced_accuracy_at, roc_auc
from grounding_lab.evaluation import document_half
from grounding_lab.model_card import BEGIN, CARD, END, render, replace_block

# The team's checkout only: the Hebrew dev file's source has no licence file, so no part
# of it ships in the repository (tests/data/README.md).
HEBREW = Path(__file__).resolve().parents[3] / "shared" / "data" / "hebrew" / "dev_hebrew.jsonl"
NO_HEBREW = (
    f"needs {HEBREW} (the team's checkout: dev_hebrew has no licence, so it never ships);"
    " the card's figures are still checked against the shipped files above"
)


def test_the_card_holds_the_generated_figures():
    card = CARD.read_text(encoding="utf-8")
    assert card.count(BEGIN) == 1 and card.count(END) == 1
    assert replace_block(card, render()) == card, "run python -m grounding_lab.model_card --write"


def test_a_card_without_markers_is_refused():
    with pytest.raises(ValueError, match="no generated block"):
        replace_block("# A card\n", render())


@pytest.mark.skipif(not HEBREW.is_file(), reason=NO_HEBREW)
def test_word_matching_scores_dev_hebrew_as_its_file_says():
    judge = WordMatchJudge.from_file()
    recorded = json.loads(WORD_MATCH_WEIGHTS.read_text())["calibrated_on"]["he"]
    hebrew = profile("he")
    by_half: dict[str, tuple[list[int], list[float]]] = {"select": ([], []), "report": ([], [])}
    for example in read_examples(HEBREW):
        evidence = " ".join(f.text for f in example.facts)
        labels, scores = by_half[document_half(example)]
        labels.append(int(example.label or 0))
        scores.append(judge.score(example.claim, [evidence], hebrew)[0])
    for half, (labels, scores) in by_half.items():
        ba = balanced_accuracy_at(labels, scores, DEFAULT_CITATION_THRESHOLD)
        assert round(ba, 4) == recorded[half]["balanced_accuracy"]
        assert round(roc_auc(labels, scores) or 0, 4) == recorded[half]["roc_auc"]
    # Issue 23's bar, on the half no choice was made on.
    assert recorded["report"]["balanced_accuracy"] >= 0.65
    assert recorded["report"]["roc_auc"] >= 0.72
