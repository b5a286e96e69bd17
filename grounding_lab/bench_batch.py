"""Batch throughput and overhead, on a scratch database and broker (offline only).

    python -m grounding_lab.bench_batch [--data FILE] [--lines 200] [--workers 1 --workers 2]

Prints medians:

1. the engine alone: time per line of `engine.check` on the file's first lines;
2. the batch path in this process: the same lines as a job, run chunk by chunk
   (`running.run_chunk`: parse, check, write each result, push the lease); the
   overhead per line is (chunk time - engine time in it) / lines, median over chunks;
3. for each --workers N: a real `celery worker --concurrency N` (prefork) on the
   embedded SQLite broker (or --broker URL), after a warm-up job that loads the model
   into every pool process; lines per second from upload to the job's end.

The data are lines of the shared grounding schema (default: the dev set). Everything
goes to a temporary directory; the model is the bundled one (GROUNDING_JUDGE applies).
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "grounding" / "dev.jsonl"


def _setup(scratch: Path, broker: str) -> dict[str, str]:
    """Point Django at a scratch database and broker; returns the workers' environment."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "grounding_app.settings",
        "DATABASE_URL": f"sqlite:///{scratch / 'bench.sqlite3'}",
        "CELERY_BROKER_URL": broker or f"sqla+sqlite:///{scratch / 'broker.sqlite3'}",
        "BATCH_QUEUE": f"bench-{os.getpid()}",
        "RETENTION_PURGE_INTERVAL": "0",
        "GROUNDING_PRELOAD": "0",
    }
    env.setdefault("SECRET_KEY", "bench-only-" + os.urandom(16).hex())
    os.environ.update(env)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    return env


def _wait(job_id: int, timeout: float) -> None:
    from grounding_app.batch.models import BatchJob

    deadline = time.monotonic() + timeout
    while BatchJob.objects.get(pk=job_id).active:
        if time.monotonic() > deadline:
            raise SystemExit(f"job {job_id} did not finish within {timeout:.0f} s")
        time.sleep(0.2)


def engine_alone(lines: list[str]) -> list[float]:
    from grounding_app.active_verifier.checker import checker
    from grounding_app.batch.lines import parse, request_for

    checker().engine()  # load first: the model load is not a line's time
    times = []
    for number, raw in enumerate(lines, start=1):
        request = request_for(parse(raw, number).item, 0.6)
        start = time.perf_counter()
        checker().check(request)
        times.append(time.perf_counter() - start)
    return times


def batch_in_process(lines: list[str]) -> tuple[list[float], list[float]]:
    """(overhead per line per chunk, engine time per line) of run_chunk on the lines."""
    from grounding_app.active_verifier.checker import checker
    from grounding_app.batch import intake, running
    from grounding_app.batch.models import BatchChunk
    from grounding_app.engine import CheckRequest, CheckResponse

    job = intake.create_job("\n".join(lines).encode(), name="bench", send=False)
    engine_times: list[float] = []

    def timed(request: CheckRequest) -> CheckResponse:
        start = time.perf_counter()
        response = checker().respond(request)
        engine_times.append(time.perf_counter() - start)
        return response

    overheads = []
    for chunk in BatchChunk.objects.filter(job=job).order_by("first"):
        before = len(engine_times)
        start = time.perf_counter()
        running.run_chunk(chunk.pk, run=timed)
        wall = time.perf_counter() - start
        done = engine_times[before:]
        if done:
            overheads.append((wall - sum(done)) / len(done))
    return overheads, engine_times


def start_worker(env: dict[str, str], concurrency: int, name: str) -> subprocess.Popen[bytes]:
    """A real Celery worker with `concurrency` pool processes, in a session of its own
    (stop it with os.killpg), logging beside the database."""
    log = Path(env["DATABASE_URL"].removeprefix("sqlite:///")).parent / f"w{concurrency}.log"
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "grounding_app.celery",
            "worker",
            "--pool=prefork",
            f"--concurrency={concurrency}",
            "--loglevel=WARNING",
            "--without-gossip",
            "--without-mingle",
            f"--hostname={name}@%h",
        ],
        cwd=ROOT,
        env=env,
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def with_workers(lines: list[str], env: dict[str, str], concurrency: int) -> float:
    """Lines per second through `concurrency` pool processes of one real worker."""
    from django.conf import settings

    from grounding_app.batch import intake

    worker = start_worker(env, concurrency, f"bench{concurrency}")
    try:
        warm = intake.create_job(
            "\n".join(lines[: concurrency * settings.BATCH_CHUNK_LINES]).encode(), name="warm-up"
        )
        _wait(warm.pk, 600)
        start = time.monotonic()
        job = intake.create_job("\n".join(lines).encode(), name=f"bench-{concurrency}")
        _wait(job.pk, 3600)
        return len(lines) / (time.monotonic() - start)
    finally:
        os.killpg(worker.pid, signal.SIGTERM)
        try:
            worker.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(worker.pid, signal.SIGKILL)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--lines", type=int, default=200)
    parser.add_argument("--workers", type=int, action="append", default=[])
    parser.add_argument("--broker", default="", help="e.g. redis://127.0.0.1:6379")
    args = parser.parse_args(argv)
    with args.data.open(encoding="utf-8") as handle:
        lines = [line.rstrip("\n") for line in handle if line.strip()][: args.lines]
    with tempfile.TemporaryDirectory(prefix="bench-batch-") as folder:
        env = _setup(Path(folder), args.broker)
        alone = engine_alone(lines)
        overheads, in_batch = batch_in_process(lines)
        ms = 1000
        print(f"{len(lines)} lines of {args.data.name}")
        print(f"engine alone:        median {statistics.median(alone) * ms:7.1f} ms per line")
        print(f"engine inside batch: median {statistics.median(in_batch) * ms:7.1f} ms per line")
        print(
            f"batch overhead:      median {statistics.median(overheads) * ms:7.1f} ms per line "
            f"(over {len(overheads)} chunks)"
        )
        for concurrency in args.workers or [1, 2]:
            rate = with_workers(lines, env, concurrency)
            label = f"{concurrency} worker process{'es' if concurrency > 1 else ''}:"
            print(f"{label:<21}{rate:7.2f} lines per second")


if __name__ == "__main__":
    main()
