"""The process-wide default engine: built once, lazily, behind a lock.

Loading the encoder takes seconds, so web workers start at once and `/readyz` reports
503 until the first load has finished. Its verifier is the bundled one unless
`use_verifier` names another directory (the Django settings' GROUNDING_VERIFIER_DIR).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from grounding_app.engine.encoders import CacheCounts
from grounding_app.engine.pipeline import GroundingEngine
from grounding_app.engine.types import CheckRequest, CheckResponse
from grounding_app.engine.verifier.model import VERIFIER_DIR, CrossEncoderJudge

_lock = threading.Lock()
_engine: GroundingEngine | None = None
_loader: threading.Thread | None = None
_verifier_dir: Path = VERIFIER_DIR


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


def use_verifier(directory: Path) -> None:
    """Make `directory` the default engine's verifier; an engine built with another one
    is dropped, so the next check loads this one."""
    global _engine, _verifier_dir
    with _lock:
        if directory.resolve() != _verifier_dir.resolve():
            _verifier_dir = directory
            _engine = None


def judge_name() -> str:
    """GROUNDING_JUDGE picks the judge: 'verifier' (trained, default) or 'features'.

    'verifier' is the directory `use_verifier` set, as 'verifier:DIR' when it is not the
    bundled one (the bundled one alone may come with the fitted aggregator).
    """
    name = os.environ.get("GROUNDING_JUDGE", "verifier")
    if name == "verifier" and _verifier_dir.resolve() != VERIFIER_DIR.resolve():
        return f"verifier:{_verifier_dir}"
    return name


def verifier_id() -> str | None:
    """Which verifier the loaded default engine judges with ("name@sha256:<12 hex>");
    None before it is loaded, or when its judge is not a verifier."""
    engine = _engine
    if engine is not None and isinstance(engine.judge, CrossEncoderJudge):
        return engine.judge.verifier_id
    return None


def fact_cache_counts() -> CacheCounts | None:
    """The loaded default engine's cache of fact encodings (None before it is loaded):
    read, never loads the engine."""
    engine = _engine
    return engine.fact_encodings.counts() if engine is not None else None


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
