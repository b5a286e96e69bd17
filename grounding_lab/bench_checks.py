"""Time the engine with and without its checks, in one process.

    python -m grounding_lab.bench_checks [--repeat 9 --repeat-largest 3] [--data FILE]

The checks (`engine.checks`, the registry the pipeline runs) read each claim after the
judge, and a flagged option also makes the engine read the next one. Runs alternate
(off, on) so that a noisy machine weighs on both alike; medians. The name finding the
role check reads stays on in both (the pipeline finds names whatever runs).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from grounding_app.engine import CheckRequest, GroundingEngine
from grounding_lab.bench_requests import DEFAULT_DATA, request_builders


@dataclass(frozen=True)
class Timing:
    name: str
    off_ms: float  # median, the checks off
    on_ms: float  # median, the engine's own checks
    repeat: int

    def line(self) -> str:
        return (
            f"{self.name}: without the checks {self.off_ms:.0f} ms, with {self.on_ms:.0f} ms"
            f" (medians of {self.repeat}, alternating)"
        )


def time_checks(
    engine: GroundingEngine,
    requests: Sequence[tuple[str, CheckRequest, int]],
    clock: Callable[[], float] = time.perf_counter,
) -> list[Timing]:
    """Each (name, request, repeat) checked once to warm up, then `repeat` times with the
    checks off and on by turns; the engine's checks are put back whatever happens."""
    own = engine.checks
    timings = []
    try:
        for name, request, repeat in requests:
            engine.check(request)
            times: dict[str, list[float]] = {"off": [], "on": []}
            for _ in range(repeat):
                for label, checks in (("off", ()), ("on", own)):
                    engine.checks = checks
                    started = clock()
                    engine.check(request)
                    times[label].append((clock() - started) * 1000)
            off, on = statistics.median(times["off"]), statistics.median(times["on"])
            timings.append(Timing(name, off, on, repeat))
    finally:
        engine.checks = own
    return timings


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--repeat-largest", type=int, default=3)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="texts to build from")
    args = parser.parse_args(argv)
    builders = request_builders(args.data)
    engine = GroundingEngine.default()
    requests = [
        ("film", builders["film"](), args.repeat),
        ("everyday", builders["everyday"](), args.repeat),
        ("largest", builders["largest"](), args.repeat_largest),
    ]
    for timing in time_checks(engine, requests):
        print(timing.line())


if __name__ == "__main__":
    main()
