"""The process-wide default engine: built once, lazily, behind a lock.

Loading the encoder takes seconds, so web workers start at once and `/readyz` reports
503 until the first load has finished.
"""

from __future__ import annotations

import os
import threading

from grounding_app.engine.pipeline import GroundingEngine
from grounding_app.engine.types import CheckRequest, CheckResponse

_lock = threading.Lock()
_engine: GroundingEngine | None = None
_loader: threading.Thread | None = None


def default_engine() -> GroundingEngine:
    global _engine
    if _engine is None:
        with _lock:
            if _engine is None:
                _engine = GroundingEngine.default(judge_name())
    return _engine


def set_default_engine(engine: GroundingEngine | None) -> None:
    """Swap the process engine (benchmarks comparing judges; tests with a fake encoder)."""
    global _engine
    with _lock:
        _engine = engine


def judge_name() -> str:
    """GROUNDING_JUDGE picks the judge: 'verifier' (trained, default) or 'features'."""
    return os.environ.get("GROUNDING_JUDGE", "verifier")


def is_ready() -> bool:
    return _engine is not None


def warm_up_in_background() -> None:
    """Start loading the default engine in a daemon thread (at most once)."""
    global _loader
    with _lock:
        if _engine is not None or _loader is not None:
            return
        _loader = threading.Thread(target=default_engine, name="engine-warm-up", daemon=True)
        _loader.start()


def check(request: CheckRequest) -> CheckResponse:
    return default_engine().check(request)
