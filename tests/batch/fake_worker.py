"""A real Celery worker process for tests, with the instant fake engine of conftest.

Run as `python -m tests.batch.fake_worker NAME`; the environment says which broker,
queue and database (see conftest.py). FAKE_LINE_DELAY slows down the check of an answer
that says "slowly", so a test can kill the worker mid-job; FAKE_ENGINE_LOG gets one
line per check actually run, so a test can count how often the engine saw each answer.
FAKE_POOL=prefork runs scripts/run's pool (one child) instead of the solo pool. While
the file FAKE_BROKER_READONLY names exists, every write to the embedded broker's SQLite
file fails as it does on a read-only `var/` (running as root, a test cannot make a file
unwritable with chmod).
"""

from __future__ import annotations

import os
import sqlite3
import sys
import time

import django
from sqlalchemy import event
from sqlalchemy.engine import Engine

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "grounding_app.settings")
django.setup()

from grounding_app.active_verifier.checker import Checker, serving  # noqa: E402
from grounding_app.celery import app  # noqa: E402
from grounding_app.engine import (  # noqa: E402
    CheckRequest,
    CheckResponse,
    FeatureJudge,
    GroundingEngine,
    HashingEncoder,
)
from tests.conftest import FAKE_JUDGE_BIAS, FAKE_JUDGE_WEIGHTS  # noqa: E402

DELAY = float(os.environ.get("FAKE_LINE_DELAY", "0"))
LOG = os.environ.get("FAKE_ENGINE_LOG", "")
READONLY_FLAG = os.environ.get("FAKE_BROKER_READONLY", "")
BROKER_FILE = os.environ.get("CELERY_BROKER_URL", "").removeprefix("sqla+sqlite:///")
WRITES = ("insert", "update", "delete", "begin immediate", "create")


@event.listens_for(Engine, "before_cursor_execute")
def readonly_broker(conn, cursor, statement, parameters, context, executemany):  # type: ignore[no-untyped-def]
    if (
        READONLY_FLAG
        and os.path.exists(READONLY_FLAG)
        and conn.engine.url.database == BROKER_FILE
        and statement.lstrip().lower().startswith(WRITES)
    ):
        raise sqlite3.OperationalError("attempt to write a readonly database")


class SlowLoggedEngine(GroundingEngine):
    def check(self, request: CheckRequest) -> CheckResponse:
        if "slowly" in request.answer:
            time.sleep(DELAY)
        if LOG:
            with open(LOG, "a", encoding="utf-8") as log:
                log.write(request.answer.replace("\n", " ") + "\n")
        return super().check(request)


encoder = HashingEncoder()
fake = SlowLoggedEngine(encoder, FeatureJudge(encoder, FAKE_JUDGE_WEIGHTS, FAKE_JUDGE_BIAS))
with serving(Checker(fake)):
    app.worker_main(
        [
            "worker",
            f"--pool={os.environ.get('FAKE_POOL', 'solo')}",
            "--concurrency=1",
            "--loglevel=INFO",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
            f"--hostname={sys.argv[1]}@%h",
        ]
    )
