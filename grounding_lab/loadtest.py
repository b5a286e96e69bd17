"""Load test on loopback: the app under `scripts/serve`, N clients posting a benchmark request.

`scripts/loadtest` runs it: production settings (debug off) on a throwaway SQLite
database, or on the database `--database-url` names (a PostgreSQL one, migrated by
`scripts/serve`), one API key per client (as separate chatbots would have; the per-key
rate limit stays on), `scripts/serve` as a deployer starts it (its gunicorn.conf.py:
worker timeout, torch threads shared among the workers) with 2 workers, then 8 clients
for 60 s, each sending the next
request as soon as the last one was answered: the everyday request, or with
`--request largest` the largest one the API accepts (200 facts of 10,000 characters,
200 sentences), so the documented maximum is served by real workers too. With
`--new-facts` every request is built anew from the next seed, so its facts were never
sent before: caches kept across requests answer nothing, as for RAG traffic that brings
newly retrieved passages (the bodies are built by the clients before their clock starts).
Every
answer that is not a 200 with claims counts as an error. Prints p50/p95 latency,
throughput and errors; exits 1 on any error. Bounded: the server is stopped and the
database removed however it ends.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from grounding_app.engine import CheckRequest
from grounding_app.formats.check_grounding import request_to_json
from grounding_lab.bench_requests import request_builders

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "grounding" / "dev.jsonl"
PATH = "/v1/projects/p/locations/global/groundingConfigs/default_grounding_config:check"


@dataclass
class Results:
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _post(port: int, body: bytes, key: str, timeout: float) -> tuple[int, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request(
            "POST", PATH, body, {"Content-Type": "application/json", "x-goog-api-key": key}
        )
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def _get_status(port: int, path: str) -> int:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        connection.request("GET", path)
        return connection.getresponse().status
    except OSError:
        return 0
    finally:
        connection.close()


class Bodies:
    """Each request's body: the same one every time, or with `new` one built from the next
    seed (its facts sent by no request before)."""

    def __init__(self, build: Callable[..., CheckRequest], new: bool, first_seed: int = 1000):
        self._build = build
        self._new = new
        self._seed = first_seed
        self._lock = threading.Lock()
        self._same = b"" if new else self._encode(build())

    @staticmethod
    def _encode(request: CheckRequest) -> bytes:
        return json.dumps(request_to_json(request)).encode()

    def next(self) -> bytes:
        if not self._new:
            return self._same
        with self._lock:
            seed, self._seed = self._seed, self._seed + 1
        return self._encode(self._build(seed=seed))


def _client(port: int, bodies: Bodies, key: str, until: float, results: Results) -> None:
    """Send requests back to back until `until`, recording each."""
    while time.monotonic() < until:
        body = bodies.next()
        started = time.perf_counter()
        try:
            status, payload = _post(port, body, key, timeout=60)
            ok = status == 200 and "claims" in json.loads(payload)
            problem = "" if ok else f"HTTP {status}: {payload[:200]!r}"
        except (OSError, ValueError, http.client.HTTPException) as exc:
            problem = f"{type(exc).__name__}: {exc}"
        elapsed = time.perf_counter() - started
        with results.lock:
            if problem:
                results.errors.append(problem)
            else:
                results.latencies.append(elapsed)


def _run_clients(port: int, bodies: Bodies, keys: list[str], seconds: float) -> Results:
    results = Results()
    until = time.monotonic() + seconds
    threads = [
        threading.Thread(target=_client, args=(port, bodies, key, until, results)) for key in keys
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def _percentile(sorted_values: list[float], fraction: float) -> float:
    return sorted_values[min(len(sorted_values) - 1, int(fraction * len(sorted_values)))]


def _manage(tree: Path, env: dict[str, str], *args: str) -> str:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=tree,
        env=env,
        check=True,
        capture_output=True,
        text=True,
        timeout=300,
    ).stdout


def serve_env(scratch: str, database_url: str = "") -> dict[str, str]:
    """scripts/serve's environment as a deployer runs it, on loopback over plain http,
    its files in `scratch` (a throwaway SQLite unless `database_url` names one)."""
    return {
        **{k: v for k, v in os.environ.items() if k != "DJANGO_DEBUG"},
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "127.0.0.1",
        "PUBLIC_URL": "http://127.0.0.1",
        "SECURE_SSL_REDIRECT": "0",  # plain http on loopback
        "DATABASE_URL": database_url or f"sqlite:///{scratch}/db.sqlite3",
        "CELERY_BROKER_URL": f"sqla+sqlite:///{scratch}/broker.sqlite3",
        "STATIC_ROOT": f"{scratch}/static",
        "GROUNDING_PRELOAD": "1",
    }


@contextlib.contextmanager
def _serve(
    tree: Path, env: dict[str, str], port: int, workers: int, log_path: Path
) -> Iterator[None]:
    """`tree`'s `scripts/serve` serving its app until the block ends, its output in
    `log_path`."""
    with log_path.open("w") as log:
        server = subprocess.Popen(
            [
                str(tree / "scripts" / "serve"),
                f"--workers={workers}",
                f"--bind=127.0.0.1:{port}",
                "--log-level=warning",
            ],
            cwd=tree,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            ready_in_a_row = 0
            deadline = time.monotonic() + 300
            while ready_in_a_row < 20:  # every worker, with overwhelming odds
                if time.monotonic() > deadline or server.poll() is not None:
                    raise RuntimeError(
                        f"the server did not become ready:\n{log_path.read_text()[-3000:]}"
                    )
                ready = _get_status(port, "/readyz") == 200
                ready_in_a_row = ready_in_a_row + 1 if ready else 0
                time.sleep(0.05 if ready else 0.5)
            yield
        finally:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=30)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--warm-up", type=float, default=5.0, help="unrecorded seconds first")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="texts to build from")
    parser.add_argument("--request", choices=("everyday", "largest"), default="everyday")
    parser.add_argument(
        "--database-url", default="", help="an existing database (default: a throwaway SQLite)"
    )
    parser.add_argument(
        "--new-facts", action="store_true", help="every request with facts never sent before"
    )
    parser.add_argument(
        "--tree",
        type=Path,
        default=ROOT,
        help="serve this checkout's app (e.g. a worktree of a baseline commit); requests are"
        " built by this one",
    )
    options = parser.parse_args(argv)

    bodies = Bodies(request_builders(options.data)[options.request], options.new_facts)
    body = bodies.next()
    port = _free_port()
    with tempfile.TemporaryDirectory(prefix="grounding-loadtest-") as scratch:
        env = serve_env(scratch, options.database_url)
        tree = options.tree.resolve()
        _manage(tree, env, "migrate", "--noinput")
        keys = [
            _manage(tree, env, "create_api_key", f"loadtest-{n}").split()[-1]
            for n in range(options.clients)
        ]
        try:
            with _serve(tree, env, port, options.workers, Path(scratch) / "server.log"):
                _run_clients(port, bodies, keys, options.warm_up)  # first-request costs
                results = _run_clients(port, bodies, keys, options.seconds)
        except RuntimeError as exc:
            print(exc, file=sys.stderr)
            return 1

    latencies = sorted(results.latencies)
    total = len(latencies) + len(results.errors)
    print(
        f"{options.clients} clients, {options.workers} gunicorn workers, {options.seconds:.0f} s,"
        f" {env['DATABASE_URL'].split(':')[0]},"
        f" {options.request} request ({len(body):,} bytes"
        f"{', new facts in each' if options.new_facts else ''}): {total} requests,"
        f" {total / options.seconds:.1f} req/s, {len(results.errors)} errors"
    )
    if latencies:
        print(
            f"latency p50 {_percentile(latencies, 0.50) * 1000:.0f} ms,"
            f" p95 {_percentile(latencies, 0.95) * 1000:.0f} ms,"
            f" mean {statistics.fmean(latencies) * 1000:.0f} ms,"
            f" max {latencies[-1] * 1000:.0f} ms"
        )
    for problem in results.errors[:5]:
        print(f"error: {problem}", file=sys.stderr)
    return 1 if results.errors or not latencies else 0


if __name__ == "__main__":
    sys.exit(main())
