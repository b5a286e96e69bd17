"""Time the engine with and without its role and hedge checks, in one process.

    DJANGO_DEBUG=1 python -m grounding_app.lab.bench_checks [--repeat 9 --repeat-largest 3]

The checks run after the judge; a flagged option also makes the engine read the next
one. Runs alternate (off, on) so that a noisy machine weighs on both alike; medians.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--repeat-largest", type=int, default=3)
    args = parser.parse_args(argv)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "grounding_app.settings")
    import django

    django.setup()
    from grounding_app.engine import pipeline
    from grounding_app.evaluation.management.commands.grounding_bench import DEFAULT_DATA
    from grounding_app.formats.grounding_jsonl import read_examples
    from grounding_app.lab.bench_requests import everyday_request, film_request, largest_request

    texts = sorted(
        {fact.text for example in read_examples(DEFAULT_DATA) for fact in example.facts},
        key=lambda t: (len(t), t),
    )
    engine = pipeline.GroundingEngine.default()
    real = (pipeline.misattributes, pipeline.drops_hedge)
    off = (lambda *_: False, lambda *_: False)
    for name, request, repeat in (
        ("film", film_request(), args.repeat),
        ("everyday", everyday_request(texts), args.repeat),
        ("largest", largest_request(texts), args.repeat_largest),
    ):
        engine.check(request)
        times: dict[str, list[float]] = {"off": [], "on": []}
        for _ in range(repeat):
            for label, checks in (("off", off), ("on", real)):
                pipeline.misattributes, pipeline.drops_hedge = checks
                started = time.perf_counter()
                engine.check(request)
                times[label].append((time.perf_counter() - started) * 1000)
        pipeline.misattributes, pipeline.drops_hedge = real
        print(
            f"{name}: without the checks {statistics.median(times['off']):.0f} ms,"
            f" with {statistics.median(times['on']):.0f} ms (medians of {repeat}, alternating)"
        )


if __name__ == "__main__":
    main()
