"""Two judges from one predictions file: per-source figures and a paired bootstrap."""

from __future__ import annotations

import json

import pytest

from grounding_app.lab import compare_judges


def _files(tmp_path, new_scores):
    rows, predictions = [], []
    old_scores = {"a": (0.1, 0.7, 0.5, 0.9), "b": (0.2, 0.3, 0.8, 0.9)}
    for source, scores in old_scores.items():
        for i, score in enumerate(scores):
            example_id = f"{source}{i}"
            rows.append(
                {
                    "id": example_id,
                    "source": source,
                    "facts": [{"text": "A fact."}],
                    "claim": "A claim.",
                    "label": int(i >= 2),
                }
            )
            predictions.append({"id": example_id, "score": score, "judge": "old"})
            if new_scores is not None:
                new = new_scores[source][i]
                predictions.append({"id": example_id, "score": new, "judge": "new"})
    data = tmp_path / "dev.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "pred.jsonl"
    out.write_text("".join(json.dumps(p) + "\n" for p in predictions))
    return str(out), str(data)


def test_side_by_side_at_the_default_and_at_the_new_optimum(tmp_path, capsys) -> None:
    new = {"a": (0.1, 0.2, 0.3, 0.4), "b": (0.15, 0.25, 0.35, 0.45)}
    pred, data = _files(tmp_path, new)
    compare_judges.main([pred, data, "--old", "old", "--new", "new", "--rounds", "50"])
    printed = capsys.readouterr().out
    # old: a wrong on one of each class (0.5), b right (1.0); new: nothing reaches 0.6
    assert "macro BA 0.750 -> 0.500" in printed
    assert "macro AUC 0.875 -> 1.000" in printed
    compare_judges.main(
        [pred, data, "--old", "old", "--new", "new", "--new-at-optimum", "--rounds", "50"]
    )
    printed = capsys.readouterr().out
    assert "new new at 0.277" in printed and "macro BA 0.750 -> 1.000" in printed
    assert "difference +0.250" in printed


def test_a_judge_missing_from_the_file_is_named(tmp_path) -> None:
    pred, data = _files(tmp_path, None)
    with pytest.raises(SystemExit, match="no rows for judge 'new'"):
        compare_judges.main([pred, data, "--old", "old", "--new", "new"])
