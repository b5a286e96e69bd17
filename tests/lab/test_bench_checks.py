"""grounding_lab/bench_checks.py times the engine with its checks off and on by turns,
and puts the engine's checks back; it runs end to end on a fake engine."""

from __future__ import annotations

from pathlib import Path

import pytest

from grounding_app.engine import CheckRequest, Fact, GroundingEngine
from grounding_lab import bench_checks
from grounding_lab.bench_requests import film_request

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "grounding_sample.jsonl"


def test_checks_are_off_and_on_by_turns_and_put_back(fake_engine: GroundingEngine) -> None:
    own = fake_engine.checks
    assert len(own) >= 8
    seen: list[int] = []
    check = fake_engine.check

    def counted(request: CheckRequest) -> object:
        seen.append(len(fake_engine.checks))
        return check(request)

    fake_engine.check = counted  # type: ignore[method-assign]
    ticks = iter(range(100))
    short = CheckRequest("Rivers run past hills.", (Fact("Rivers run."),))
    timings = bench_checks.time_checks(
        fake_engine,
        [("film", film_request(), 2), ("short", short, 1)],
        clock=lambda: float(next(ticks)),
    )
    assert seen == [len(own), 0, len(own), 0, len(own), len(own), 0, len(own)]
    assert [(t.name, t.off_ms, t.on_ms, t.repeat) for t in timings] == [
        ("film", 1000.0, 1000.0, 2),
        ("short", 1000.0, 1000.0, 1),
    ]
    assert fake_engine.checks is own
    assert timings[0].line() == (
        "film: without the checks 1000 ms, with 1000 ms (medians of 2, alternating)"
    )


def test_the_checks_are_put_back_when_a_check_fails(fake_engine: GroundingEngine) -> None:
    own = fake_engine.checks

    def fails(request: CheckRequest) -> None:
        if not fake_engine.checks:
            raise RuntimeError("a check failed")

    fake_engine.check = fails  # type: ignore[method-assign,assignment]
    with pytest.raises(RuntimeError):
        bench_checks.time_checks(fake_engine, [("film", film_request(), 1)])
    assert fake_engine.checks is own


def test_the_command_runs_on_a_small_file(
    fake_engine: GroundingEngine,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(GroundingEngine, "default", classmethod(lambda cls: fake_engine))
    bench_checks.main(["--repeat", "1", "--repeat-largest", "1", "--data", str(SAMPLE)])
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in lines] == ["film", "everyday", "largest"]
    assert all("medians of 1, alternating" in line for line in lines)
