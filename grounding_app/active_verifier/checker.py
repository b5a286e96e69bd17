"""The one way the app checks: follow the active verifier, check, say which one judged.

A `Checker` keeps the engine of the verifier active now (loaded on first use by one
thread, outside the lock every check takes: while a newly chosen verifier loads, checks
go on with the engine of the one before; that engine is then dropped). `check` takes the engine
once and both checks with it and reads its verifier's id from it, so a response names
the verifier that produced it even when another thread switches verifiers meanwhile.
The engine package keeps no process state: this module holds the process's checker.
Its escalation, the LLM judge of the claims the verifier is unsure of, is followed the
same way: the one saved on the Verifier page, else the LLM_JUDGE_* settings
(`llm_judge/config.py`), rebuilt only when its setup changes.

Tests and benchmarks that need another engine (a fake encoder, a judge under test) run
their code inside `serving(Checker(engine))` instead of changing a module of the engine.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Final, Generic, Literal, TypeVar

from django.conf import settings
from django.db import DatabaseError, connections

from grounding_app.active_verifier.models import ActiveVerifier
from grounding_app.calibration.models import Scope
from grounding_app.calibration.services import scale_for
from grounding_app.engine import (
    FEATURE_JUDGE,
    VERIFIER_DIR,
    CacheCounts,
    CheckRequest,
    CheckResponse,
    Escalation,
    GroundingEngine,
)
from grounding_app.llm_judge.config import JudgeSetup, current, from_settings
from grounding_app.llm_judge.judge import Usage, metered

logger = logging.getLogger(__name__)

FOLLOW_SECONDS = 2.0
# A checker's escalation by default: the LLM judge working now (none when none is set).
FOLLOW: Final = "follow"


T = TypeVar("T")


class Followed(Generic[T]):
    """A value kept in the database, read again at most once per FOLLOW_SECONDS, so a
    change made by any process reaches every process within that time."""

    def __init__(self, read: Callable[[], T]) -> None:
        self._read = read
        self._lock = threading.Lock()
        self._value: T | None = None
        self._read_at = float("-inf")

    def get(self, now: float | None = None) -> T:
        now = time.monotonic() if now is None else now
        with self._lock:
            if self._value is not None and now - self._read_at < FOLLOW_SECONDS:
                return self._value
        return self.set(self._read(), now)

    def set(self, value: T, now: float | None = None) -> T:
        with self._lock:
            self._value = value
            self._read_at = time.monotonic() if now is None else now
        return value

    def forget(self) -> None:
        """The next `get` reads the database."""
        with self._lock:
            self._read_at = float("-inf")


def configured_directory() -> Path:
    """The verifier a process starts with: GROUNDING_VERIFIER_DIR (the bundled default)."""
    return Path(settings.GROUNDING_VERIFIER_DIR)


def active_directory() -> Path:
    """The directory the database names, else the configured one."""
    chosen = ActiveVerifier.objects.filter(pk=ActiveVerifier.SINGLETON).first()
    return Path(chosen.directory) if chosen and chosen.directory else configured_directory()


def judge_name(directory: Path) -> str:
    """The GROUNDING_JUDGE setting picks the judge: 'verifier' (trained, default) or
    'features'.

    'verifier' is `directory`, as 'verifier:DIR' when it is not the bundled one (the
    bundled one alone may come with the fitted aggregator).
    """
    name = str(settings.GROUNDING_JUDGE)
    if name == "verifier" and directory.resolve() != VERIFIER_DIR.resolve():
        return f"verifier:{directory}"
    return name


@dataclass(frozen=True)
class Checked:
    """A response and what produced it, read from the engine that checked."""

    response: CheckResponse
    verifier: str | None  # "name@sha256:<12 hex>"; None when the judge is not a verifier
    languages: tuple[str, ...]  # those the judge's model reads
    judge: str  # "verifier" or "feature judge"
    llm_judge: Usage = field(default_factory=Usage)  # what the LLM judge did for it


def checked_by(engine: GroundingEngine, response: CheckResponse) -> Checked:
    name = "feature judge" if engine.judge_kind == FEATURE_JUDGE else "verifier"
    return Checked(response, engine.verifier_id, tuple(engine.languages), name)


class Checker:
    """The engine of the active verifier, re-read from the database at most once per
    FOLLOW_SECONDS; with `engine` given, that engine always (tests, benchmarks). Claims
    in the band of `escalation` are judged again by it."""

    def __init__(
        self,
        engine: GroundingEngine | None = None,
        escalation: Escalation | Literal["follow"] | None = FOLLOW,
    ) -> None:
        self._fixed = engine
        self._escalation = escalation
        self._directory = Followed(active_directory)
        # A setup is followed as a tuple: `None` (no judge) is a value read, not "unread".
        self._setups = Followed(lambda: (_judge_setup(),))
        self._built: tuple[JudgeSetup | None, Escalation | None] = (None, None)
        self._lock = threading.Lock()
        # Held while an engine loads (seconds), never by a check of a loaded engine.
        self._loading = threading.Lock()
        self._loaded: tuple[str, GroundingEngine] | None = None
        self._loader: threading.Thread | None = None

    def directory(self, now: float | None = None) -> Path:
        """The active verifier's directory, followed (`Followed`)."""
        return self._directory.get(now)

    def forget_followed(self) -> None:
        """The next check reads the database (after a switch here, and in tests)."""
        self._directory.forget()
        self._setups.forget()

    @classmethod
    def of_verifier(cls, directory: Path) -> Checker:
        """A checker of the verifier in `directory` alone, whatever is active: measuring a
        candidate (an adaptation) before anyone chooses it."""
        return cls(GroundingEngine.default(f"verifier:{directory}"), escalation=None)

    def engine(self) -> GroundingEngine:
        """The engine judging with the active verifier, loaded on first use.

        One thread loads a verifier's engine, once; meanwhile the others keep checking
        with the engine already loaded, and wait only when there is none.
        """
        if self._fixed is not None:
            return self._fixed
        name = judge_name(self.directory())
        loaded = self._loaded
        if loaded is not None and loaded[0] == name:
            return loaded[1]
        if loaded is None:
            self._loading.acquire()
        elif not self._loading.acquire(blocking=False):
            return loaded[1]  # another thread is loading: check with the engine before
        try:
            loaded = self._loaded  # loaded by the thread this one waited for
            if loaded is None or loaded[0] != name:
                loaded = (name, GroundingEngine.default(name))
                self._loaded = loaded
            return loaded[1]
        finally:
            self._loading.release()

    def escalation(self, now: float | None = None) -> Escalation | None:
        """The LLM judge working now, followed, and built anew only when its setup
        changed (a new judge starts with an empty cache)."""
        if self._escalation != FOLLOW:
            return self._escalation
        (setup,) = self._setups.get(now)
        with self._lock:
            if setup != self._built[0]:
                self._built = (setup, setup.build() if setup else None)
            return self._built[1]

    def check(self, request: CheckRequest, scope: tuple[Scope, str] | None = None) -> Checked:
        """Checks with the active verifier's engine; in `scope` (a config, trace source or
        batch label), on the scale calibrated for that scope and that verifier, if one is
        applied (`calibration/`)."""
        engine = self.engine()
        if scope is not None:
            request = replace(request, scale=scale_for(*scope, engine.verifier_id))
        escalation = self.escalation()
        if escalation is None:  # the engine's plain call (stand-ins in tests take no more)
            return checked_by(engine, engine.check(request))
        with metered() as usage:
            response = engine.check(request, escalation)
        return replace(checked_by(engine, response), llm_judge=usage)

    def respond(self, request: CheckRequest) -> CheckResponse:
        """The response alone, for callers that store no verifier (labeling items)."""
        return self.check(request).response

    def loaded(self) -> GroundingEngine | None:
        """The engine if one is loaded; never loads it (a page, a probe)."""
        if self._fixed is not None:
            return self._fixed
        loaded = self._loaded
        return loaded[1] if loaded is not None else None

    def is_ready(self) -> bool:
        return self.loaded() is not None

    def fact_cache_counts(self) -> CacheCounts | None:
        """The loaded engine's cache of fact encodings; None before it is loaded."""
        engine = self.loaded()
        return engine.fact_encodings.counts() if engine is not None else None

    def warm_up_in_background(self) -> None:
        """Start loading the engine in a daemon thread (at most once)."""
        with self._lock:
            if self._loaded is not None or self._loader is not None or self._fixed is not None:
                return
            self._loader = threading.Thread(target=self._warm_up, name="engine-warm-up")
            self._loader.daemon = True
            self._loader.start()

    def _warm_up(self) -> None:
        try:
            self.engine()
        except DatabaseError:  # no table yet (served before migrate): the configured one
            logger.warning("warm-up: the active verifier cannot be read", exc_info=True)
            self._directory.set(configured_directory())
            self.engine()
        finally:
            connections.close_all()


def _judge_setup() -> JudgeSetup | None:
    try:
        return current()
    except DatabaseError:  # no table yet (a command before migrate): the settings'
        return from_settings()


_process = Checker()


def checker() -> Checker:
    """The process's checker."""
    return _process


@contextmanager
def serving(replacement: Checker) -> Iterator[Checker]:
    """Make `replacement` the process's checker while the block runs (tests, benchmarks)."""
    global _process
    before, _process = _process, replacement
    try:
        yield replacement
    finally:
        _process = before
