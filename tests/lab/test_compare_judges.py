"""Two judges from one predictions file: per-source figures and a paired bootstrap."""

from __future__ import annotations

import pytest

from grounding_lab import compare_judges
from tests.lab.predictions import write_files

OLD = {"a": (0.1, 0.7, 0.5, 0.9), "b": (0.2, 0.3, 0.8, 0.9)}


def test_side_by_side_at_the_default_and_at_the_new_optimum(tmp_path, capsys) -> None:
    new = {"a": (0.1, 0.2, 0.3, 0.4), "b": (0.15, 0.25, 0.35, 0.45)}
    pred, data = map(str, write_files(tmp_path, {"old": OLD, "new": new}))
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
    pred, data = map(str, write_files(tmp_path, {"old": OLD}))
    with pytest.raises(SystemExit, match="no rows for judge 'new'"):
        compare_judges.main([pred, data, "--old", "old", "--new", "new"])
