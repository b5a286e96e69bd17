"""Median latency of the engine and of the HTTP API for three request sizes, peak RSS.

With several `--judge`s the judges are timed in alternation (each round takes every
judge once), so their medians compare on a shared, noisy machine. `--baseline REF` times
REF's engine (a worktree under var/bench/) against today's the same way, each in a
process of its own (`grounding_lab/bench_worker.py`), so each has its own peak RSS.
"""

from __future__ import annotations

import json
import os
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

from grounding_app.active_verifier.checker import Checker, checker, serving
from grounding_app.api.models import ApiKey
from grounding_app.engine import (
    CheckRequest,
    GroundingEngine,
    split_sentences,
)
from grounding_app.formats.check_grounding import request_to_json
from grounding_lab.bench_requests import (
    DEFAULT_DATA,
    benchmark_texts,
    everyday_request,
    film_request,
    largest_request,
)
from grounding_lab.bench_worker import REPO, EngineProcess, baseline_tree
from grounding_lab.cli import add_judge_option

# The latency the project promises (issue 11): film example 100 ms, everyday 500 ms.
TARGETS_MS = {"a film example": 100, "b everyday": 500, "c largest": 20_000}
PEAK_RSS_TARGET_MB = 2048
# Per engine process with --baseline (issue 31).
BASELINE_RSS_TARGET_MB = 1024
REQUEST_NAMES = {"film": "a film example", "everyday": "b everyday", "largest": "c largest"}


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
            "--request",
            action="append",
            choices=sorted(REQUEST_NAMES),
            help="time only these requests (default: all three)",
        )
        parser.add_argument(
            "--baseline",
            metavar="REF",
            help="time the engine of commit REF against today's, alternating (no HTTP)",
        )
        parser.add_argument(
            "--cold",
            action="store_true",
            help="with --baseline: empty what engines keep across requests before each check",
        )
        parser.add_argument(
            "--same-responses",
            action="store_true",
            help="with --baseline: also say whether both engines answer each request alike",
        )
        add_judge_option(parser, "time")

    def handle(self, *args: object, **options: Any) -> None:
        data: Path = options["data"]
        if not data.is_file():
            raise CommandError(f"benchmark texts not found: {data} (use --data)")
        texts = benchmark_texts(data)
        wanted = {REQUEST_NAMES[n] for n in options["request"] or REQUEST_NAMES}
        requests = {
            name: (build(), int(options[repeat]))
            for name, build, repeat in (
                ("a film example", film_request, "repeat"),
                ("b everyday", partial(everyday_request, texts), "repeat"),
                ("c largest", partial(largest_request, texts), "repeat_largest"),
            )
            if name in wanted
        }
        judges: list[str] | None = options["judge"]
        if options["baseline"]:
            self._baseline(options["baseline"], requests, (judges or ["verifier"])[0], options)
            return
        engines = (
            {name: GroundingEngine.default(name) for name in judges}
            if judges
            else {"default": checker().engine()}
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

    def _baseline(
        self,
        ref: str,
        requests: dict[str, tuple[CheckRequest, int]],
        judge: str,
        options: dict[str, Any],
    ) -> None:
        """Medians of REF's engine and today's in alternated rounds, their ratio, and
        each process's peak RSS."""
        try:
            tree = baseline_tree(ref)
        except RuntimeError as exc:
            raise CommandError(str(exc)) from exc
        bodies = {
            name: {
                "answer": request.answer,
                "facts": [[fact.text, dict(fact.attributes)] for fact in request.facts],
            }
            for name, (request, _) in requests.items()
        }
        # REF's exported graphs are today's when the weights are the same file.
        env = dict(os.environ)
        env.setdefault("GROUNDING_CACHE_DIR", str(REPO / "var"))
        engines: dict[str, EngineProcess] = {}
        rows: list[dict[str, Any]] = []
        cold = bool(options["cold"])
        try:
            engines[ref] = EngineProcess(tree, bodies, judge, env, cold)
            engines["today"] = EngineProcess(REPO, bodies, judge, env, cold)
            for name, (request, repeat) in requests.items():
                calls: dict[str, Callable[[], object]] = {
                    label: partial(process.check, name) for label, process in engines.items()
                }
                medians = interleaved_medians(calls, repeat)
                rows.append(
                    {
                        "name": name,
                        "claims": len(split_sentences(request.answer)),
                        "rounds": repeat,
                        "baseline_ms": round(medians[ref], 1),
                        "today_ms": round(medians["today"], 1),
                        "ratio": round(medians["today"] / medians[ref], 3),
                    }
                )
            if options["same_responses"]:
                for row in rows:
                    answers = [p.response(row["name"]) for p in engines.values()]
                    row["same_response"] = answers[0] == answers[1]
            rss = {label: process.peak_rss_mb() for label, process in engines.items()}
        finally:
            for process in engines.values():
                process.close()
        if options["json"]:
            result = {"baseline": ref, "cold": cold, "requests": rows, "peak_rss_mb": rss}
            self.stdout.write(json.dumps(result, indent=2))
            return
        if cold:
            self.stdout.write("cold: caches emptied before each check")
        self.stdout.write(
            f"{'request':<16} {'claims':>6} {'rounds':>6} {ref + ' ms':>14} {'today ms':>10}"
            f" {'ratio':>6}"
        )
        for row in rows:
            same = row.get("same_response")
            self.stdout.write(
                f"{row['name']:<16} {row['claims']:>6} {row['rounds']:>6}"
                f" {row['baseline_ms']:>14.1f} {row['today_ms']:>10.1f} {row['ratio']:>6.3f}"
                + ("" if same is None else " same response" if same else " OTHER RESPONSE")
            )
        for label, mb in rss.items():
            verdict = "ok" if mb <= BASELINE_RSS_TARGET_MB else "OVER"
            self.stdout.write(
                f"peak RSS {label}: {mb:.0f} MB (target {BASELINE_RSS_TARGET_MB}) {verdict}"
            )

    @classmethod
    def _post_with(
        cls, engine: GroundingEngine, url: str, key: str, body: bytes
    ) -> dict[str, object]:
        with serving(Checker(engine)):
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
