"""Where a check's time goes, on the benchmark's three requests (cProfile).

    python -m grounding_lab.profile_bench [--cold] [--runs 3] [--request film ...]

Each request is checked once to warm up (what a running server has done), then once
under cProfile; the time of each stage is the cumulative time of the functions that
make it up, the rest is everything else. `--cold` empties the caches that outlive a
request first (fact encodings, per-text memos), as for facts the server sees the first
time. cProfile slows Python code more than model runs, so the shares of Python stages
are upper bounds; the last line is the unprofiled median of `--runs` checks.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import statistics
import time
from collections.abc import Callable, Sequence
from functools import partial

# Where a stage's function is not one of the engine's public names, it is named by its
# file (under grounding_app/engine/) and its name, unique in that file.
Where = Callable[..., object] | tuple[str, str]


def stages() -> tuple[tuple[str, tuple[Where, ...]], ...]:
    """(label, functions): top-level stages of a check, none inside another."""
    from grounding_app.engine import (
        CrossEncoderJudge,
        GroundingEngine,
        MiniLMEncoder,
        identify,
        split_sentences,
    )

    return (
        ("verifier: model runs", (CrossEncoderJudge.logits,)),
        ("verifier: windows (tokenizer)", (("evidence.py", "windows"),)),
        ("encoder: model runs", (MiniLMEncoder.encode,)),
        ("passage index (split, BM25)", (("retrieval.py", "__init__"),)),
        ("candidates (BM25 search)", (("retrieval.py", "candidates"),)),
        ("checks (contradiction, role, hedge ...)", (("checks/__init__.py", "fired"),)),
        ("unsupported words", (GroundingEngine.explain,)),
        ("claims: split, language", (split_sentences, identify, ("claim_work.py", "_readable"))),
    )


def _matches(key: tuple[str, int, str], where: Where) -> bool:
    path, line, name = key
    if isinstance(where, tuple):
        return path.endswith(f"grounding_app/engine/{where[0]}") and name == where[1]
    code = where.__code__
    return (path, line, name) == (code.co_filename, code.co_firstlineno, code.co_name)


def stage_times(stats: pstats.Stats) -> dict[str, float]:
    """Seconds per stage (cumulative), and the rest of the check."""
    raw = stats.stats  # type: ignore[attr-defined]
    total = max(ct for (_, _, _, ct, _) in raw.values())
    out: dict[str, float] = {}
    for label, functions in stages():
        out[label] = sum(
            ct
            for key, (_, _, _, ct, _) in raw.items()
            if any(_matches(key, where) for where in functions)
        )
    out["rest"] = max(0.0, total - sum(out.values()))
    out["total (profiled)"] = total
    return out


def profile(
    check: Callable[[], object], cold: Callable[[], None], runs: int
) -> tuple[dict[str, float], float]:
    """Stage seconds of one profiled check, and the unprofiled median of `runs`."""
    check()
    times = []
    for _ in range(runs):
        cold()
        started = time.perf_counter()
        check()
        times.append(time.perf_counter() - started)
    cold()
    profiler = cProfile.Profile()
    profiler.enable()
    check()
    profiler.disable()
    return stage_times(pstats.Stats(profiler)), statistics.median(times)


def table(columns: dict[str, tuple[dict[str, float], float]]) -> list[str]:
    labels = [label for label, _ in stages()] + ["rest"]
    header = "| stage | " + " | ".join(f"{name} ms | %" for name in columns) + " |"
    lines = [header, "|---|" + "---:|---:|" * len(columns)]
    for label in labels:
        cells = []
        for times, _ in columns.values():
            share = 100 * times[label] / times["total (profiled)"]
            cells.append(f"{times[label] * 1000:.0f} | {share:.0f}")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    totals = " | ".join(f"{s['total (profiled)'] * 1000:.0f} | 100" for s, _ in columns.values())
    lines.append(f"| total, profiled | {totals} |")
    medians = " | ".join(f"{m * 1000:.0f} | " for _, m in columns.values())
    lines.append(f"| total, unprofiled (median) | {medians}|")
    return lines


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cold", action="store_true", help="empty lasting caches each run")
    parser.add_argument("--runs", type=int, default=3, help="unprofiled runs for the total")
    parser.add_argument(
        "--request", action="append", choices=["film", "everyday", "largest"], help="default: all"
    )
    args = parser.parse_args(argv)
    from grounding_app.engine import GroundingEngine, clear_text_caches
    from grounding_lab.bench_requests import request_builders

    engine = GroundingEngine.default()

    def cold() -> None:
        if args.cold:
            engine.fact_encodings.clear()
            clear_text_caches()

    builders = request_builders()
    columns = {}
    for name in args.request or builders:
        columns[name] = profile(partial(engine.check, builders[name]()), cold, args.runs)
    print("\n".join(table(columns)))


if __name__ == "__main__":
    main()
