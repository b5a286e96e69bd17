"""Traces receiver throughput, on a scratch database and broker (offline only).

    python -m grounding_lab.bench_traces [--traces 200] [--per-export 50] [--runs 3]
                                             [--workers 1 --workers 2]

Prints medians over --runs runs:

1. receiving alone: spans per second through the whole Django stack (middleware, key,
   gzip, protobuf decoding, storing), exports of --per-export traces of three spans each
   (a RAG function instrumented as OpenLLMetry and OpenInference instrument one, encoded
   by the OpenTelemetry SDK's own encoder), posted in-process with Django's test client;
2. for each --workers N: a real `celery worker --concurrency N` (prefork; its sweeper
   assembles the traces, its pool checks them with the bundled model), after a warm-up
   that loads the model into every pool process: answers checked per second, from the
   first export posted to the last line checked; and the receive latency of those
   exports while the worker assembles and checks (receiving never waits on checking).

Everything goes to a temporary directory.
"""

from __future__ import annotations

import argparse
import gzip
import os
import signal
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from grounding_lab.bench_batch import _setup, start_worker

SPANS_PER_TRACE = 3


def exports(first: int, traces: int, per_export: int) -> list[bytes]:
    """Gzipped protobuf exports of `traces` answered questions, `per_export` a request."""
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from grounding_lab import rag_traces

    bodies = []
    for start in range(first, first + traces, per_export):
        memory = InMemorySpanExporter()
        provider = TracerProvider(resource=Resource.create({"service.name": "bench"}))
        provider.add_span_processor(SimpleSpanProcessor(memory))
        tracer = provider.get_tracer("bench")
        for n in range(start, min(first + traces, start + per_export)):
            rag_traces.answer(tracer, n, rag_traces.CONVENTIONS[n % 2])
        bodies.append(gzip.compress(encode_spans(memory.get_finished_spans()).SerializeToString()))
    return bodies


def post_all(client: Any, key: str, bodies: list[bytes]) -> list[float]:
    """Post each export; returns each one's latency in seconds."""
    latencies = []
    for body in bodies:
        start = time.perf_counter()
        response = client.post(
            "/otlp/v1/traces",
            body,
            content_type="application/x-protobuf",
            HTTP_CONTENT_ENCODING="gzip",
            HTTP_X_GOOG_API_KEY=key,
            secure=True,  # the production settings redirect plain http
        )
        latencies.append(time.perf_counter() - start)
        if response.status_code != 200:
            raise SystemExit(f"export refused: {response.status_code} {response.content[:200]!r}")
    return latencies


def checked(job_ids: set[int] | None = None) -> int:
    from grounding_app.batch.models import BatchLine

    lines = BatchLine.objects.filter(state=BatchLine.State.DONE)
    return lines.count() if job_ids is None else lines.filter(job_id__in=job_ids).count()


def wait_checked(target: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while checked() < target:
        if time.monotonic() > deadline:
            raise SystemExit(f"only {checked()} of {target} answers checked in {timeout:.0f} s")
        time.sleep(0.1)


def stop_worker(worker: subprocess.Popen[bytes]) -> None:
    os.killpg(worker.pid, signal.SIGTERM)
    try:
        worker.wait(60)
    except subprocess.TimeoutExpired:
        os.killpg(worker.pid, signal.SIGKILL)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--traces", type=int, default=200)
    parser.add_argument("--per-export", type=int, default=50)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--workers", type=int, action="append", default=[])
    args = parser.parse_args(argv)
    os.environ.setdefault("TRACES_SWEEP_SECONDS", "1")
    os.environ.setdefault("API_RATE_LIMIT", "0")
    with tempfile.TemporaryDirectory(prefix="bench-traces-") as folder:
        env = _setup(Path(folder), "")
        from django.test import Client

        from grounding_app.api.models import ApiKey
        from grounding_app.traces.models import PendingSpan, PendingTrace

        _, key = ApiKey.issue("bench")
        client = Client(HTTP_HOST="localhost")
        spans = args.traces * SPANS_PER_TRACE
        print(
            f"{args.traces} traces ({spans} spans) per run, {args.per_export} traces per export,"
            f" gzipped protobuf; medians of {args.runs} runs"
        )
        rates = []
        latencies: list[float] = []
        next_question = 0
        for _ in range(args.runs):
            bodies = exports(next_question, args.traces, args.per_export)
            next_question += args.traces
            start = time.perf_counter()
            latencies += post_all(client, key, bodies)
            rates.append(spans / (time.perf_counter() - start))
            PendingSpan.objects.all().delete()
            PendingTrace.objects.all().delete()
        print(
            f"receiving alone:      {statistics.median(rates):8.0f} spans per second"
            f" (median export {ms(statistics.median(latencies))})"
        )
        for concurrency in args.workers or [1, 2]:
            worker = start_worker(env, concurrency, f"traces{concurrency}")
            try:
                warm = exports(next_question, 4 * concurrency, args.per_export)
                next_question += 4 * concurrency
                before = checked()
                post_all(client, key, warm)
                wait_checked(before + 4 * concurrency, 600)
                answer_rates, receive = [], []
                for _ in range(args.runs):
                    bodies = exports(next_question, args.traces, args.per_export)
                    next_question += args.traces
                    before = checked()
                    start = time.perf_counter()
                    for body in bodies:  # exports arrive while the earlier ones are checked
                        receive += post_all(client, key, [body])
                        time.sleep(0.5)
                    wait_checked(before + args.traces, 3600)
                    answer_rates.append(args.traces / (time.perf_counter() - start))
            finally:
                stop_worker(worker)
            label = f"{concurrency} worker process{'es' if concurrency > 1 else ''}:"
            print(
                f"{label:<21} {statistics.median(answer_rates):8.2f} answers checked per second;"
                f" receive latency while checking: median {ms(statistics.median(receive))},"
                f" max {ms(max(receive))}"
            )


if __name__ == "__main__":
    main()
