"""Starting `scripts/serve` from a test: a free port, a deployer's environment on
scratch files (database, static root, broker), and a clean stop of gunicorn's group."""

from __future__ import annotations

import http.client
import os
import signal
import socket
import ssl
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def production_environment(scratch: Path) -> dict[str, str]:
    """Production settings on files under `scratch`, nothing from the test run."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k
        not in {
            "DJANGO_DEBUG",
            "DJANGO_SETTINGS_MODULE",
            "DATABASE_URL",
            "SECRET_KEY",
            "REDIS_URL",
            "CELERY_BROKER_URL",
            "DJANGO_ALLOW_ASYNC_UNSAFE",
        }
        and not k.startswith(("SECURE_", "LOGIN_RATE", "API_RATE"))
    }
    env.update(
        SECRET_KEY="serve-test-" + "x" * 50,
        DATABASE_URL=f"sqlite:///{scratch / 'db.sqlite3'}",
        CELERY_BROKER_URL=f"sqla+sqlite:///{scratch / 'broker.sqlite3'}",
        STATIC_ROOT=str(scratch / "static"),
        ALLOWED_HOSTS="localhost,127.0.0.1",
        PUBLIC_URL="http://127.0.0.1",
        GROUNDING_JUDGE="features",  # serving is under test, not verdicts
    )
    return env


def stop(process: subprocess.Popen[bytes]) -> None:
    """TERM gunicorn's whole group (it was started in a session of its own), then KILL."""
    if process.poll() is not None:
        return
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def wait_until_ready(
    port: int, process: subprocess.Popen[bytes], log: Path, tls: bool = False, within: float = 240
) -> None:
    """Poll /healthz until it answers 200; fail with the log's tail if the server exits
    or stays silent (a first start migrates, collects static files and loads models)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"scripts/serve exited {process.returncode}:\n{log.read_text()[-4000:]}")
        if tls:
            context = ssl._create_unverified_context()
            conn: http.client.HTTPConnection = http.client.HTTPSConnection(
                "localhost", port, timeout=5, context=context
            )
        else:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        try:
            conn.request("GET", "/healthz")
            if conn.getresponse().status == 200:
                return
        except OSError:
            pass
        finally:
            conn.close()
        time.sleep(0.3)
    pytest.fail(f"scripts/serve did not answer within {within:.0f} s:\n{log.read_text()[-4000:]}")


def manage(env: dict[str, str], *args: str) -> str:
    """`manage.py ARGS` under `env` (the server's), its output."""
    python = str(ROOT / ".venv" / "bin" / "python")
    return subprocess.run(
        [python, "manage.py", *args], cwd=ROOT, env=env, check=True, capture_output=True, text=True
    ).stdout


@contextmanager
def served_on(
    env: dict[str, str], scratch: Path, *args: str, tls: bool = False, within: float = 180
) -> Iterator[tuple[int, Path]]:
    """`scripts/serve ARGS` under `env` on a free port until the block ends: (port, its
    log); `tls` when ARGS give gunicorn a certificate."""
    port = free_port()
    log = scratch / "serve.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [str(ROOT / "scripts" / "serve"), f"--bind=127.0.0.1:{port}", *args],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        wait_until_ready(port, process, log, tls=tls, within=within)
        yield port, log
    finally:
        stop(process)
