"""Starting `scripts/serve` from a test: a free port, a deployer's environment on
scratch files (database, static root, broker), and a clean stop of gunicorn's group."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
from pathlib import Path

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
