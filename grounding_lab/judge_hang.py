"""The LLM judge against an endpoint that never answers, through `scripts/serve`.

    python -m grounding_lab.judge_hang [--clients 4] [--requests 12] [--database-url URL]

A local server accepts every connection and reads the request, then says nothing (or,
with --trickle, sends one byte of a reply every 3 s). `scripts/serve` runs with its
defaults (2 gunicorn workers, a 60 s worker timeout) and the judge set to every claim
(`LLM_JUDGE_BAND=all`) at that server; clients send new whole answers to the check API.
It prints how long each check took, how many failed, how many claims fell back to the
verifier, and the WORKER TIMEOUT lines of the server's log: each check must be answered
within the worker timeout, every claim marked as fallen back (issue 44's acceptance).
With more clients than workers a check also waits for a worker, which the client's
time counts and the worker timeout does not.
"""

from __future__ import annotations

import argparse
import json
import socket
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from grounding_lab.bench_requests import request_builders
from grounding_lab.loadtest import (
    DEFAULT_DATA,
    ROOT,
    Bodies,
    _free_port,
    _manage,
    _post,
    _serve,
    serve_env,
)

WORKER_TIMEOUT = 60.0


def _silent(listener: socket.socket, trickle: bool, stop: threading.Event) -> None:
    """Accept, read, then answer nothing (or a byte of headers every 3 s) until `stop`."""
    held = []
    listener.settimeout(0.5)
    while not stop.is_set():
        try:
            conn, _ = listener.accept()
        except TimeoutError:
            continue
        held.append(conn)

        def hold(c: socket.socket) -> None:
            c.settimeout(1.0)
            try:
                c.recv(65536)
                for byte in b"HTTP/1.1 200 OK\r\n" if trickle else b"":
                    if stop.wait(3.0):
                        return
                    c.sendall(bytes([byte]))
                stop.wait()
            except OSError:
                return

        threading.Thread(target=hold, args=(conn,), daemon=True).start()
    for conn in held:
        conn.close()


@dataclass
class Tally:
    """What the clients saw: each check's time, failures, claims and those fallen back."""

    took: list[float] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    claims: int = 0
    fell_back: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, elapsed: float, status: int, body: bytes) -> None:
        with self.lock:
            self.took.append(elapsed)
            if status != 200:
                self.failed.append(f"{status}: {body[:200]!r}")
                return
            claims = json.loads(body).get("claims", [])
            checked = [c for c in claims if c.get("groundingCheckRequired")]
            self.claims += len(checked)
            self.fell_back += sum(
                str(c.get("llmJudge", "")).startswith("fell back") for c in checked
            )


def _env(scratch: str, judge_port: int, database_url: str) -> dict[str, str]:
    """scripts/serve's environment (`loadtest.serve_env`), the judge at `judge_port`."""
    return {
        **serve_env(scratch, database_url),
        "LLM_JUDGE_URL": f"http://127.0.0.1:{judge_port}/v1",
        "LLM_JUDGE_MODEL": "never-answers",
        "LLM_JUDGE_BAND": "all",
    }


def _send(port: int, key: str, bodies: Bodies, clients: int, requests: int) -> Tally:
    """`requests` checks from `clients` clients, each sending back to back."""
    tally = Tally()

    def client(count: int) -> None:
        for _ in range(count):
            started = time.monotonic()
            try:
                status, body = _post(port, bodies.next(), key, timeout=120)
            except OSError as exc:
                status, body = 0, str(exc).encode()
            tally.add(time.monotonic() - started, status, body)

    share = [requests // clients] * clients
    share[0] += requests - sum(share)
    threads = [threading.Thread(target=client, args=(n,)) for n in share]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return tally


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=2, help="one per worker: none waits")
    parser.add_argument("--requests", type=int, default=12)
    parser.add_argument("--trickle", action="store_true", help="one byte every 3 s")
    parser.add_argument("--database-url", default="")
    options = parser.parse_args(argv)

    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()
    threading.Thread(target=_silent, args=(listener, options.trickle, stop), daemon=True).start()
    bodies = Bodies(request_builders(DEFAULT_DATA)["everyday"], new=True)
    port = _free_port()
    with tempfile.TemporaryDirectory(prefix="grounding-judge-hang-") as scratch:
        env = _env(scratch, listener.getsockname()[1], options.database_url)
        _manage(ROOT, env, "migrate", "--noinput")
        key = _manage(ROOT, env, "create_api_key", "judge-hang").split()[-1]
        log = Path(scratch) / "server.log"
        try:
            with _serve(ROOT, env, port, 2, log):
                tally = _send(port, key, bodies, options.clients, options.requests)
        finally:
            stop.set()
        timeouts = [line for line in log.read_text().splitlines() if "WORKER TIMEOUT" in line]
    took = tally.took
    print("each check, in the order answered (s): " + ", ".join(f"{t:.1f}" for t in took))
    longest, median = max(took), sorted(took)[len(took) // 2]
    print(
        f"judge endpoint {'trickling' if options.trickle else 'silent'}, band all,"
        f" 2 workers, {options.clients} clients: {len(took)} checks, {len(tally.failed)} failed,"
        f" longest {longest:.1f} s, median {median:.1f} s (worker timeout"
        f" {WORKER_TIMEOUT:.0f} s); {tally.fell_back} of {tally.claims} claims fell back;"
        f" {len(timeouts)} WORKER TIMEOUT lines"
    )
    for problem in tally.failed[:5]:
        print(f"failed: {problem}", file=sys.stderr)
    ok = not tally.failed and not timeouts and longest < WORKER_TIMEOUT
    return 0 if ok and tally.fell_back == tally.claims else 1


if __name__ == "__main__":
    sys.exit(main())
