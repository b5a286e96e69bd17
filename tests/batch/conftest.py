"""Batch fixtures: JSONL lines, brokers, and real worker processes started by the test.

A worker is `tests/batch/fake_worker.py` in a subprocess of its own session (so a
SIGKILL reaches it whole), on the test database (the test must be transactional so
the worker sees committed rows) and a queue named for this run, so runs sharing one
Redis never take each other's tasks.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from django.db import connection
from django.test import override_settings

from grounding_app.celery import app

ROOT = Path(__file__).resolve().parents[2]
LEASE_SECONDS = 2
SLOW_LINE_SECONDS = 0.03  # the fake engine's time on an answer that says "slowly"


def grounding_line(n: int, supported: bool = True, slow: bool = False) -> str:
    """One line of the shared grounding schema; every third source is "news". The fake
    worker's engine takes SLOW_LINE_SECONDS over a claim that says "slowly"."""
    fact = f"Item {n} was made in the town of Avalon in the year 19{n % 100:02d}."
    claim = fact if supported else f"Item {n} was painted blue by Morgan in Camelot."
    if slow:
        claim = claim.replace("was", "was slowly", 1)
    return json.dumps(
        {
            "id": f"ex-{n}",
            "source": "news" if n % 3 == 0 else "wiki",
            "facts": [{"text": fact, "attributes": {"author": "Atlas"}}],
            "claim": claim,
        }
    )


def jsonl(count: int, bad: tuple[int, ...] = (), slow: bool = False) -> bytes:
    """`count` lines, every fifth unsupported; the line numbers in `bad` are malformed."""
    lines = [
        "{not json" if n in bad else grounding_line(n, supported=n % 5 != 0, slow=slow)
        for n in range(1, count + 1)
    ]
    return ("\n".join(lines) + "\n").encode()


def redis_url() -> str | None:
    """REDIS_URL (as .ci/run exports it), else a local Redis that answers, else None."""
    import redis

    url = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379"
    try:
        redis.Redis.from_url(url, socket_connect_timeout=1).ping()
    except redis.RedisError:
        return None
    return url


def _broker(kind: str, folder: Path) -> str:
    if kind == "redis":
        url = redis_url()
        if url is None:
            pytest.skip("Redis does not answer (set REDIS_URL); CI runs this with Redis")
        return url
    return f"sqla+sqlite:///{folder / 'broker.sqlite3'}"


def _database_url() -> str:
    db = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{db['NAME']}"
    auth = db["USER"] + (f":{db['PASSWORD']}" if db.get("PASSWORD") else "")
    return f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


@dataclass
class Workers:
    env: dict[str, str]
    logs: Path
    engine_log: Path
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def start(self) -> subprocess.Popen[bytes]:
        name = f"w{len(self.processes)}-{uuid.uuid4().hex[:6]}"
        log = self.logs / f"{name}.log"
        process = subprocess.Popen(
            [sys.executable, "-m", "tests.batch.fake_worker", name],
            cwd=ROOT,
            env=self.env,
            stdout=log.open("wb"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.processes.append(process)
        deadline = time.monotonic() + 90
        while b" ready." not in log.read_bytes():
            if process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"worker {name} did not start:\n{log.read_text()}")
            time.sleep(0.1)
        return process

    def kill(self, process: subprocess.Popen[bytes]) -> None:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(10)

    def checks_run(self) -> Counter[str]:
        """How often the engine was run on each answer, over every worker."""
        if not self.engine_log.exists():
            return Counter()
        return Counter(self.engine_log.read_text(encoding="utf-8").splitlines())

    def stop_all(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                self.kill(process)


@contextmanager
def running_workers(kind: str, folder: Path) -> Iterator[Workers]:
    """Settings for a broker and a queue of this run's own, and the workers' environment;
    on exit every worker started is killed and the queue dropped."""
    broker = _broker(kind, folder)
    queue = f"test-batch-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    overrides = override_settings(
        CELERY_BROKER_URL=broker,
        CELERY_TASK_DEFAULT_QUEUE=queue,
        BATCH_LEASE_SECONDS=LEASE_SECONDS,
        BATCH_QUEUED_TIMEOUT=2 * LEASE_SECONDS,
    )
    saved_options = app.conf.broker_transport_options
    env = {
        key: value for key, value in os.environ.items() if not key.startswith(("PYTEST", "DJANGO_"))
    }
    env.update(
        DJANGO_SETTINGS_MODULE="grounding_app.settings",
        SECRET_KEY="test-secret-key-not-for-production",
        DATABASE_URL=_database_url(),
        CELERY_BROKER_URL=broker,
        BATCH_QUEUE=queue,
        BATCH_LEASE_SECONDS=str(LEASE_SECONDS),
        BATCH_QUEUED_TIMEOUT=str(2 * LEASE_SECONDS),
        BATCH_SWEEP_SECONDS="1",
        RETENTION_PURGE_INTERVAL="0",
        GROUNDING_PRELOAD="0",
        FAKE_LINE_DELAY=str(SLOW_LINE_SECONDS),
        FAKE_ENGINE_LOG=str(folder / "engine.log"),
    )
    workers = Workers(env, folder, folder / "engine.log")
    overrides.enable()
    # The SQLAlchemy transport hands its options to create_engine: it takes none.
    app.conf.broker_transport_options = {} if broker.startswith("sqla") else saved_options
    try:
        yield workers
    finally:
        workers.stop_all()
        app.conf.broker_transport_options = saved_options
        overrides.disable()
        if broker.startswith("redis"):
            import redis

            redis.Redis.from_url(broker).delete(queue)


@pytest.fixture(scope="module", params=["embedded", "redis"])
def shared_workers(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    django_db_setup: None,
) -> Iterator[Workers]:
    """One worker for the tests of a module that leave it running, per broker."""
    with running_workers(request.param, tmp_path_factory.mktemp(request.param)) as workers:
        workers.start()
        yield workers


@pytest.fixture(params=["embedded", "redis"])
def workers(
    request: pytest.FixtureRequest, tmp_path: Path, transactional_db: None
) -> Iterator[Workers]:
    """Workers of this test's own (it may kill them), none started yet."""
    with running_workers(request.param, tmp_path) as started:
        yield started


def wait_for(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.2)
