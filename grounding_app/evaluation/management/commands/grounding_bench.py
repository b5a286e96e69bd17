"""Median latency of the engine and of the HTTP API for three request sizes, peak RSS.

With several `--judge`s the judges are timed in alternation (each round takes every
judge once), so their medians compare on a shared, noisy machine.
"""

from __future__ import annotations

import json
import resource
import statistics
import threading
import time
import urllib.request
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.core.servers.basehttp import ThreadedWSGIServer, WSGIRequestHandler
from django.core.wsgi import get_wsgi_application
from django.test.utils import override_settings

from grounding_app.api.models import ApiKey
from grounding_app.engine import (
    CheckRequest,
    GroundingEngine,
    default_engine,
    set_default_engine,
    split_sentences,
)
from grounding_app.evaluation.cli import judge_spec
from grounding_app.formats.check_grounding import request_to_json
from grounding_app.lab.bench_requests import (
    DEFAULT_DATA,
    benchmark_texts,
    everyday_request,
    film_request,
    largest_request,
)

# The latency the project promises (issue 11): film example 100 ms, everyday 500 ms.
TARGETS_MS = {"a film example": 100, "b everyday": 500, "c largest": 20_000}
PEAK_RSS_TARGET_MB = 2048


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


def interleaved_medians(calls: dict[str, Callable[[], object]], repeat: int) -> dict[str, float]:
    """Median milliseconds of each call, timed in rounds that take every call once, so a
    busy spell on a shared machine falls on all of them alike, not on whichever ran then."""
    for call in calls.values():
        call()  # warm-up: first-call costs are not what a running server pays
    times: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(repeat):
        for name, call in calls.items():
            started = time.perf_counter()
            call()
            times[name].append(time.perf_counter() - started)
    return {name: statistics.median(values) * 1000 for name, values in times.items()}


class Command(BaseCommand):
    help = "Benchmark the engine and the HTTP API on three request sizes."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="texts to build from")
        parser.add_argument("--repeat", type=int, default=15, help="runs for (a) and (b)")
        parser.add_argument("--repeat-largest", type=int, default=3, help="runs for (c)")
        parser.add_argument("--json", action="store_true")
        parser.add_argument(
            "--judge",
            action="append",
            type=judge_spec,
            metavar="JUDGE",
            help=(
                "judge(s) to time in one run: verifier, features, or verifier:DIR"
                " (weights trained into DIR); default: the engine's default judge"
            ),
        )

    def handle(self, *args: object, **options: Any) -> None:
        data: Path = options["data"]
        if not data.is_file():
            raise CommandError(f"benchmark texts not found: {data} (use --data)")
        texts = benchmark_texts(data)
        requests = {
            "a film example": (film_request(), int(options["repeat"])),
            "b everyday": (everyday_request(texts), int(options["repeat"])),
            "c largest": (largest_request(texts), int(options["repeat_largest"])),
        }
        judges: list[str] | None = options["judge"]
        engines = (
            {name: GroundingEngine.default(name) for name in judges}
            if judges
            else {"default": default_engine()}
        )
        key_row, key = ApiKey.issue("grounding_bench (temporary)")
        server = ThreadedWSGIServer(("127.0.0.1", 0), _QuietHandler)
        # Plain http on loopback: production's https redirect would answer every call.
        with override_settings(SECURE_SSL_REDIRECT=False):
            server.set_app(get_wsgi_application())
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        url = (
            f"http://127.0.0.1:{server.server_port}/v1/projects/bench/locations/global/"
            "groundingConfigs/default_grounding_config:check"
        )
        results = []
        try:
            for name, (request, repeat) in requests.items():
                body = json.dumps(request_to_json(request)).encode()
                calls: dict[str, Callable[[], object]] = {}
                for judge, engine in engines.items():
                    calls[f"engine {judge}"] = partial(engine.check, request)
                    calls[f"http {judge}"] = partial(self._post_with, engine, url, key, body)
                medians = interleaved_medians(calls, repeat)
                for judge in engines:
                    results.append(
                        self._row(
                            judge,
                            name,
                            request,
                            medians[f"engine {judge}"],
                            medians[f"http {judge}"],
                        )
                    )
        finally:
            server.shutdown()
            key_row.delete()
        peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        if options["json"]:
            self.stdout.write(json.dumps({"requests": results, "peak_rss_mb": peak_mb}, indent=2))
            return
        width = max(9, *(len(row["judge"]) for row in results))
        self.stdout.write(
            f"{'judge':<{width}} {'request':<16} {'facts':>5} {'chars':>9} {'claims':>6} "
            f"{'engine ms':>10} {'http ms':>9} {'target':>8}"
        )
        for row in results:
            verdict = "ok" if row["http_ms"] <= row["target_ms"] else "OVER"
            self.stdout.write(
                f"{row['judge']:<{width}} {row['name']:<16} {row['facts']:>5}"
                f" {row['fact_chars']:>9} {row['claims']:>6} "
                f"{row['engine_ms']:>10.1f} {row['http_ms']:>9.1f} {row['target_ms']:>6} {verdict}"
            )
        verdict = "ok" if peak_mb <= PEAK_RSS_TARGET_MB else "OVER"
        self.stdout.write(f"peak RSS {peak_mb:.0f} MB (target {PEAK_RSS_TARGET_MB}) {verdict}")

    @classmethod
    def _post_with(
        cls, engine: GroundingEngine, url: str, key: str, body: bytes
    ) -> dict[str, object]:
        set_default_engine(engine)
        return cls._post(url, key, body)

    @staticmethod
    def _post(url: str, key: str, body: bytes) -> dict[str, object]:
        request = urllib.request.Request(
            url,
            data=body,
            method="POST",
            headers={"Content-Type": "application/json", "x-goog-api-key": key},
        )
        with urllib.request.urlopen(request, timeout=120) as response:
            return json.loads(response.read())

    @staticmethod
    def _row(
        judge: str, name: str, request: CheckRequest, engine_ms: float, http_ms: float
    ) -> dict:
        return {
            "judge": judge,
            "name": name,
            "facts": len(request.facts),
            "fact_chars": sum(len(f.text) for f in request.facts),
            "claims": len(split_sentences(request.answer)),
            "engine_ms": round(engine_ms, 1),
            "http_ms": round(http_ms, 1),
            "target_ms": TARGETS_MS[name],
        }
