"""The adaptation experiments' splits: by document, never across one, and apart from
adapt_verifier's own hold-out (which must still find documents on the adapt side)."""

from __future__ import annotations

import json
from pathlib import Path

from grounding_app.formats.grounding_jsonl import read_examples
from grounding_app.verifiers.adapt.labels import document_key, split_by_document
from grounding_lab.adapt_experiments import (
    cap_by_document,
    hebrew_split,
    split,
    summary,
    table,
    weakest,
)
from tests.lab.test_adapt_verifier import label_lines, write_lines


def examples(tmp_path: Path, documents: int = 60, source: str = "team"):
    lines = [{**line, "id": f"{source}:{line['id']}"} for line in label_lines(documents, source)]
    path = write_lines(tmp_path / f"{source}.jsonl", lines)
    return list(read_examples(path))


def keys(part) -> set[str]:
    return {document_key(e) for e in part}


def test_the_split_is_by_document_and_leaves_adapt_a_hold_out(tmp_path):
    everything = examples(tmp_path)
    adapt_side, test = split(everything)
    assert adapt_side and test and len(adapt_side) + len(test) == len(everything)
    assert not keys(adapt_side) & keys(test)
    trained, held = split_by_document(adapt_side, 0.2)
    assert trained and held  # salted: not the same halves as adapt's hold-out
    assert split(everything) == (adapt_side, test)


def test_the_cap_keeps_whole_documents_and_no_more_labels_than_asked(tmp_path):
    everything = examples(tmp_path)
    for most in (0, 2, 3, 10, 50, 1000):
        kept = cap_by_document(everything, most, seed=13)
        assert len(kept) <= most
        assert len(kept) == min(most // 3 * 3, len(everything))  # three labels a document
        assert all(len([e for e in kept if document_key(e) == k]) == 3 for k in keys(kept))


def test_the_hebrew_split_cuts_between_documents(tmp_path):
    lines = label_lines(60)
    lines += [{**line, "id": f"{line['id']}-again"} for line in lines[:30]]
    path = write_lines(tmp_path / "he.jsonl", lines)
    everything = list(read_examples(path))
    for adapt_on in (1, 40, 100, len(everything)):
        adapted, test = hebrew_split(everything, adapt_on)
        assert len(adapted) >= min(adapt_on, len(everything))
        assert len(adapted) + len(test) == len(everything)
        assert not keys(adapted) & keys(test)


def test_the_weakest_sources_are_those_that_can_be_adapted_on(tmp_path):
    strong, weak, tiny = (examples(tmp_path, n, s) for n, s in ((60, "a"), (60, "b"), (4, "c")))
    score = {e.id: float(e.label) for e in strong}  # right every time
    score |= {e.id: 1.0 - e.label for e in weak}  # wrong every time
    score |= {e.id: 1.0 - e.label for e in tiny}  # wrong too, but too few to adapt on
    assert weakest([*strong, *weak, *tiny], score, 1) == ["b"]
    assert weakest([*strong, *weak, *tiny], score, 3) == ["b", "a"]
    figures = summary({"a": ([1, 0], [0.9, 0.1]), "b": ([1, 0], [0.1, 0.9])})
    assert json.dumps(figures) == json.dumps(
        {"examples": 4, "macro_ba": 0.5, "macro_auc": 0.5, "macro_best_ba": 0.75}
    )


def test_the_ceiling_is_each_source_at_its_own_best_threshold():
    """Ranked perfectly but all below 0.6: wrong at the default, right at its own best."""
    figures = summary({"low": ([1, 1, 0, 0], [0.5, 0.4, 0.2, 0.1])})
    assert figures["macro_ba"] == 0.5 and figures["macro_best_ba"] == 1.0


def test_the_table_prints_gains_and_the_ceiling(capsys):
    side = {
        "shipped": {"macro_ba": 0.70, "macro_auc": 0.8, "macro_best_ba": 0.74},
        "adapted": {"macro_ba": 0.73, "macro_auc": 0.8},
    }
    other = {
        "shipped": {"macro_ba": 0.8, "macro_auc": 0.9},
        "adapted": {"macro_ba": 0.79, "macro_auc": 0.9},
    }
    table(
        {"sources": {"x": {"adapted_on": 9, "minutes": 1.0, "test": side, "other_sources": other}}}
    )
    out = capsys.readouterr().out
    assert "| x | 9 | 1.0 | 0.700 -> 0.730 (+0.030); AUC 0.800 -> 0.800 | 0.740 |" in out
    assert "mean balanced-accuracy gain on the test sides: +0.0300" in out
    assert "would give the shipped verifier: +0.0400" in out
