"""The one sweeper thread of batch, traces and alerts (grounding_app/common/sweeper.py)."""

from __future__ import annotations

import logging
import threading
import time

import pytest

from grounding_app.batch import tasks as batch_tasks
from grounding_app.common.sweeper import Sweeper
from grounding_app.monitoring import tasks as monitoring_tasks
from grounding_app.traces import tasks as traces_tasks


def test_a_failing_pass_is_logged_and_the_next_one_runs(caplog: pytest.LogCaptureFixture) -> None:
    passes: list[str] = []
    cleaned = threading.Semaphore(0)

    def sweep() -> None:
        passes.append("pass")
        if len(passes) == 1:
            raise RuntimeError("database gone")

    def after() -> None:
        passes.append("after")
        cleaned.release()

    sweeper = Sweeper("test sweeper", sweep, after, logging.getLogger("test.sweeper"))
    with caplog.at_level(logging.ERROR, logger="test.sweeper"):
        thread = sweeper.start(0.01)
        assert thread.name == "test-sweeper" and thread.daemon
        for _ in range(2):
            assert cleaned.acquire(timeout=5)
        sweeper.stop()
        thread.join(timeout=5)
    assert not thread.is_alive()
    assert passes[:4] == ["pass", "after", "pass", "after"]
    assert [r.getMessage() for r in caplog.records] == [
        "test sweeper failed; trying again in 0.01 s"
    ]


def test_stop_ends_the_wait_at_once() -> None:
    swept = threading.Event()
    sweeper = Sweeper("slow sweeper", swept.set, lambda: None, logging.getLogger("test"))
    thread = sweeper.start(3600)
    assert swept.wait(timeout=5)
    started = time.monotonic()
    sweeper.stop()
    thread.join(timeout=5)
    assert not thread.is_alive() and time.monotonic() - started < 5


def test_batch_traces_and_alerts_run_the_shared_sweeper() -> None:
    assert isinstance(batch_tasks.sweeper, Sweeper) and batch_tasks.sweeper.name == "batch sweeper"
    assert isinstance(traces_tasks.sweeper, Sweeper)
    assert traces_tasks.sweeper.name == "traces sweeper"
    assert isinstance(monitoring_tasks.evaluator, Sweeper)
