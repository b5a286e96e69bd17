"""grounding_bench times several judges, or a pinned commit's engine and today's, in
alternation, so their medians compare."""

from __future__ import annotations

import io
import itertools
import json
import subprocess
from pathlib import Path

import pytest
from django.core.management import call_command

from grounding_lab.bench_worker import EngineProcess, baseline_tree
from grounding_lab.management.commands.grounding_bench import interleaved_medians


def test_each_round_takes_every_call_once_after_one_warm_up_each():
    order: list[str] = []
    calls = {name: (lambda name=name: order.append(name)) for name in ("old", "new", "http")}
    interleaved_medians(calls, repeat=3)
    assert order[:3] == ["old", "new", "http"]  # the warm-ups
    rounds = [order[i : i + 3] for i in range(3, len(order), 3)]
    assert rounds == [["old", "new", "http"]] * 3


def test_the_median_of_each_call_is_its_own():
    clock = itertools.count()
    slow_ticks = {"slow": 0}

    def slow() -> None:
        slow_ticks["slow"] += 1
        for _ in range(200_000):
            next(clock)

    medians = interleaved_medians({"fast": lambda: None, "slow": slow}, repeat=5)
    assert slow_ticks["slow"] == 6
    assert medians["fast"] < medians["slow"]
    assert set(medians) == {"fast", "slow"}


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True
    ).stdout.strip()


def test_the_baseline_is_a_worktree_of_the_pinned_commit_made_once(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    for version in ("old", "new"):
        (repo / "engine.txt").write_text(version)
        _git(repo, "add", "engine.txt")
        _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", version)
    old = _git(repo, "rev-parse", "HEAD~1")
    tree = baseline_tree("HEAD~1", repo)
    assert tree == repo / "var" / "bench" / old[:12]
    assert (tree / "engine.txt").read_text() == "old"
    assert (repo / "engine.txt").read_text() == "new"
    assert baseline_tree(old, repo) == tree  # the second run reuses it
    with pytest.raises(RuntimeError, match="no-such-ref"):
        baseline_tree("no-such-ref", repo)


FAKE_PIPELINE = """
import time

class GroundingEngine:
    @classmethod
    def default(cls, judge):
        return cls()

    def check(self, request):
        time.sleep(0.01 * len(request.facts))
"""

FAKE_TYPES = """
from dataclasses import dataclass

@dataclass(frozen=True)
class Fact:
    text: str
    attributes: dict

@dataclass(frozen=True)
class CheckRequest:
    answer: str
    facts: tuple
"""


def test_a_worker_runs_its_own_tree_s_engine_and_reports_its_rss(tmp_path: Path) -> None:
    engine = tmp_path / "grounding_app" / "engine"
    engine.mkdir(parents=True)
    (tmp_path / "grounding_app" / "__init__.py").write_text("")
    (engine / "__init__.py").write_text("")
    (engine / "pipeline.py").write_text(FAKE_PIPELINE)
    (engine / "types.py").write_text(FAKE_TYPES)
    requests = {
        "small": {"answer": "A.", "facts": [["x", {}]]},
        "big": {"answer": "B.", "facts": [["y", {"k": "v"}]] * 20},
    }
    worker = EngineProcess(tmp_path, requests)
    try:
        assert worker.package == tmp_path / "grounding_app"
        medians = interleaved_medians(
            {"small": lambda: worker.check("small"), "big": lambda: worker.check("big")}, 2
        )
        assert medians["big"] > 150 > medians["small"]
        assert worker.peak_rss_mb() > 1
    finally:
        worker.close()


@pytest.mark.slow
@pytest.mark.django_db
def test_baseline_run_times_a_pinned_engine_against_today_s() -> None:
    out = io.StringIO()
    call_command(
        "grounding_bench", baseline="HEAD", request=["film"], repeat=1, json=True, stdout=out
    )
    result = json.loads(out.getvalue())
    (row,) = result["requests"]
    assert row["name"] == "a film example" and row["rounds"] == 1
    assert row["baseline_ms"] > 0 and row["today_ms"] > 0
    assert row["ratio"] == pytest.approx(row["today_ms"] / row["baseline_ms"], abs=1e-3)
    assert set(result["peak_rss_mb"]) == {"HEAD", "today"}
