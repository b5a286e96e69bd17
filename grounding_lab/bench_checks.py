"""Time the engine with and without its role and hedge checks, in one process.

    DJANGO_DEBUG=1 python -m grounding_lab.bench_checks [--repeat 9 --repeat-largest 3]

The checks (and the name finding the role check needs) run after the judge; a flagged
option also makes the engine read the next one. Runs alternate (off, on) so that a
noisy machine weighs on both alike; medians.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Sequence


def _never(*_: object) -> bool:
    return False


def _no_names(*_: object) -> frozenset[str]:
    return frozenset()


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--repeat-largest", type=int, default=3)
    args = parser.parse_args(argv)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "grounding_app.settings")
    import django

    django.setup()
    from grounding_app.engine import pipeline
    from grounding_lab.bench_requests import request_builders

    builders = request_builders()
    engine = pipeline.GroundingEngine.default()
    switched = ("misattributes", "drops_hedge", "proper_names")
    real = [getattr(pipeline, attr) for attr in switched]
    off = [_never, _never, _no_names]
    for name, request, repeat in (
        ("film", builders["film"](), args.repeat),
        ("everyday", builders["everyday"](), args.repeat),
        ("largest", builders["largest"](), args.repeat_largest),
    ):
        engine.check(request)
        times: dict[str, list[float]] = {"off": [], "on": []}
        for _ in range(repeat):
            for label, checks in (("off", off), ("on", real)):
                for attr, function in zip(switched, checks, strict=True):
                    setattr(pipeline, attr, function)
                started = time.perf_counter()
                engine.check(request)
                times[label].append((time.perf_counter() - started) * 1000)
        for attr, function in zip(switched, real, strict=True):
            setattr(pipeline, attr, function)
        print(
            f"{name}: without the checks {statistics.median(times['off']):.0f} ms,"
            f" with {statistics.median(times['on']):.0f} ms (medians of {repeat}, alternating)"
        )


if __name__ == "__main__":
    main()
