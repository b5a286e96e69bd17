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
import os
import secrets
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path

from grounding_lab.bench_requests import request_builders
from grounding_lab.loadtest import DEFAULT_DATA, ROOT, Bodies, _free_port, _manage, _post, _serve

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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=2, help="one per worker: none waits")
    parser.add_argument("--requests", type=int, default=12)
    parser.add_argument("--trickle", action="store_true", help="one byte every 3 s")
    parser.add_argument("--database-url", default="")
    options = parser.parse_args(argv)

    listener = socket.create_server(("127.0.0.1", 0))
    judge_port = listener.getsockname()[1]
    stop = threading.Event()
    threading.Thread(target=_silent, args=(listener, options.trickle, stop), daemon=True).start()
    bodies = Bodies(request_builders(DEFAULT_DATA)["everyday"], new=True)
    port = _free_port()
    with tempfile.TemporaryDirectory(prefix="grounding-judge-hang-") as scratch:
        env = {
            **{k: v for k, v in os.environ.items() if k != "DJANGO_DEBUG"},
            "SECRET_KEY": secrets.token_urlsafe(50),
            "ALLOWED_HOSTS": "127.0.0.1",
            "PUBLIC_URL": "http://127.0.0.1",
            "SECURE_SSL_REDIRECT": "0",
            "DATABASE_URL": options.database_url or f"sqlite:///{scratch}/db.sqlite3",
            "CELERY_BROKER_URL": f"sqla+sqlite:///{scratch}/broker.sqlite3",
            "STATIC_ROOT": f"{scratch}/static",
            "GROUNDING_PRELOAD": "1",
            "LLM_JUDGE_URL": f"http://127.0.0.1:{judge_port}/v1",
            "LLM_JUDGE_MODEL": "never-answers",
            "LLM_JUDGE_BAND": "all",
        }
        _manage(ROOT, env, "migrate", "--noinput")
        key = _manage(ROOT, env, "create_api_key", "judge-hang").split()[-1]
        log = Path(scratch) / "server.log"
        took: list[float] = []
        failed: list[str] = []
        claims = fell_back = 0
        lock = threading.Lock()

        def client(count: int) -> None:
            nonlocal claims, fell_back
            for _ in range(count):
                started = time.monotonic()
                try:
                    status, body = _post(port, bodies.next(), key, timeout=120)
                except OSError as exc:
                    status, body = 0, str(exc).encode()
                elapsed = time.monotonic() - started
                with lock:
                    took.append(elapsed)
                    if status != 200:
                        failed.append(f"{status}: {body[:200]!r}")
                        continue
                    checked = [
                        c
                        for c in json.loads(body).get("claims", [])
                        if c.get("groundingCheckRequired")
                    ]
                    claims += len(checked)
                    fell_back += sum(
                        str(c.get("llmJudge", "")).startswith("fell back") for c in checked
                    )

        try:
            with _serve(ROOT, env, port, 2, log):
                share = [options.requests // options.clients] * options.clients
                share[0] += options.requests - sum(share)
                threads = [threading.Thread(target=client, args=(n,)) for n in share]
                for t in threads:
                    t.start()
                for t in threads:
                    t.join()
        finally:
            stop.set()
        timeouts = [line for line in log.read_text().splitlines() if "WORKER TIMEOUT" in line]
    print("each check, in the order answered (s): " + ", ".join(f"{t:.1f}" for t in took))
    took.sort()
    print(
        f"judge endpoint {'trickling' if options.trickle else 'silent'}, band all,"
        f" 2 workers, {options.clients} clients: {len(took)} checks, {len(failed)} failed,"
        f" longest {took[-1]:.1f} s, median {took[len(took) // 2]:.1f} s"
        f" (worker timeout {WORKER_TIMEOUT:.0f} s); {fell_back} of {claims} claims fell back;"
        f" {len(timeouts)} WORKER TIMEOUT lines"
    )
    for problem in failed[:5]:
        print(f"failed: {problem}", file=sys.stderr)
    ok = not failed and not timeouts and took[-1] < WORKER_TIMEOUT and fell_back == claims
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
