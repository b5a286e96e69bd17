"""The LLM judge as the engine's `Escalation`: the band, a queue of at most `concurrency`
calls in flight, a cache by content hash (shared by every process when built from the
config), one retry on a malformed answer, the daily cap, one deadline for a check's
whole judging, a pause after failures in a row (an endpoint that hangs would otherwise
cost every check its whole deadline), and a fallback (never an exception) for whatever
goes wrong."""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Protocol

from grounding_app.engine import Band, Escalated, Outcome, Ruling
from grounding_app.llm_judge.client import (
    REQUEST_SECONDS,
    RETRY,
    Endpoint,
    EndpointError,
    complete,
    messages,
    parse_ruling,
)

logger = logging.getLogger(__name__)

BAD_ANSWER = "bad answer"  # malformed twice
DAILY_CAP = "daily cap"
DEADLINE = "deadline"  # the check's time for judging ran out before this claim's turn
UNAVAILABLE = "unavailable"  # the judge pauses after failures in a row (`Pause`)
# Failures in a row that pause the judge, and how long the pause lasts; the first call
# after it tries the endpoint again. A call cut by the check's own deadline says nothing
# of the endpoint and is not counted.
PAUSE_AFTER = 3
PAUSE_SECONDS = 60.0


@dataclass
class Usage:
    """What the judge did and what its requests to the endpoint cost: summed per check
    request (`metered`), per batch job and per day (the ledger)."""

    claims: int = 0  # claims it was shown, cached ones included
    calls: int = 0
    failures: int = 0  # claims it gave no ruling on
    ruled: int = 0  # claims it gave a ruling on (a call that came back usable)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def add(self, other: Usage) -> None:
        self.claims += other.claims
        self.calls += other.calls
        self.failures += other.failures
        self.ruled += other.ruled
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.seconds += other.seconds


_meter: ContextVar[Usage | None] = ContextVar("llm_judge_meter", default=None)
# When the check run in `metered` began: its judging ends `seconds` after that, however
# long the verifier took first.
_started: ContextVar[float | None] = ContextVar("llm_judge_check_started", default=None)


@contextmanager
def metered() -> Iterator[Usage]:
    """The judge's work on the check run in the block (this thread or task only), which
    ends its judging within the judge's `seconds` of the block's start."""
    usage = Usage()
    token = _meter.set(usage)
    started = _started.set(time.monotonic())
    try:
        yield usage
    finally:
        _started.reset(started)
        _meter.reset(token)


class Ledger(Protocol):
    """Where each day's spending is kept (the database, `ledger.py`)."""

    def spent_today(self) -> int: ...

    def record(self, usage: Usage) -> None: ...


class Rulings(Protocol):
    """Where rulings are kept by content hash (this process's memory, or the database
    every process shares: `rulings.py`)."""

    def get(self, key: str) -> Ruling | None: ...

    def put(self, key: str, ruling: Ruling) -> None: ...


class MemoryRulings:
    """Rulings by content hash, the least recently used dropped past `size` (per process)."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._rulings: OrderedDict[str, Ruling] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> Ruling | None:
        with self._lock:
            ruling = self._rulings.get(key)
            if ruling is not None:
                self._rulings.move_to_end(key)
            return ruling

    def put(self, key: str, ruling: Ruling) -> None:
        with self._lock:
            self._rulings[key] = ruling
            self._rulings.move_to_end(key)
            while len(self._rulings) > self._size:
                self._rulings.popitem(last=False)


class _Budget:
    """The tokens one `judge` call may still spend today; None: no cap."""

    def __init__(self, left: int | None) -> None:
        self._left = left
        self._lock = threading.Lock()

    def allows(self) -> bool:
        with self._lock:
            return self._left is None or self._left > 0

    def spend(self, tokens: int) -> None:
        with self._lock:
            if self._left is not None:
                self._left -= tokens


class Pause:
    """After `after` failed calls in a row, no call for `seconds`: the claims fall back at
    once ("unavailable") instead of each check waiting out its deadline. The call after
    the pause tries the endpoint again; its failure pauses again, any answer ends it."""

    def __init__(self, after: int = PAUSE_AFTER, seconds: float = PAUSE_SECONDS) -> None:
        self.after, self.seconds = after, seconds
        self._lock = threading.Lock()
        self._failures = 0
        self._until = 0.0

    def paused(self, now: float | None = None) -> bool:
        with self._lock:
            return (time.monotonic() if now is None else now) < self._until

    def failed(self, reason: str) -> None:
        if reason == DEADLINE:
            return
        with self._lock:
            self._failures += 1
            if self._failures >= self.after:
                self._until = time.monotonic() + self.seconds
                logger.warning(
                    "llm judge: %d calls failed in a row (last: %s); no call for %.0f s",
                    self._failures,
                    reason,
                    self.seconds,
                )

    def answered(self) -> None:
        with self._lock:
            self._failures, self._until = 0, 0.0


class LLMJudge:
    """Judges the claims in `band` through `endpoint`, at most `concurrency` requests at a
    time in this process (the others wait their turn), and none once the day's tokens
    reach `daily_tokens` (0: no cap); one `judge` call ends within `seconds`, counted
    from the start of the check (`metered`) where one is running."""

    def __init__(
        self,
        endpoint: Endpoint,
        band: Band,
        ledger: Ledger,
        *,
        concurrency: int = 2,
        daily_tokens: int = 0,
        rulings: Rulings | None = None,
        unread_languages: bool = False,
        seconds: float = REQUEST_SECONDS,
        pause: Pause | None = None,
    ) -> None:
        self.endpoint = endpoint
        self.band = band
        self.ledger = ledger
        self.unread_languages = unread_languages
        self.concurrency = max(1, concurrency)
        self.daily_tokens = daily_tokens
        self.seconds = min(seconds, REQUEST_SECONDS)
        self._slots = threading.Semaphore(self.concurrency)
        self._cache = rulings if rulings is not None else MemoryRulings(4096)
        self.pause = pause or Pause()

    def wants(self, score: float) -> bool:
        return score in self.band

    def takes_unread(self, language: str) -> bool:
        return self.unread_languages

    def judge(self, items: Sequence[Escalated]) -> list[Outcome]:
        keys = [self._key(item) for item in items]
        cached = [self._cache.get(key) for key in keys]
        todo = [k for k, ruling in enumerate(cached) if ruling is None]
        outcomes = [Outcome(ruling) for ruling in cached]
        meter = _meter.get()
        if meter is not None:
            meter.claims += len(items)
        if not todo:
            return outcomes
        budget = _Budget(
            self.daily_tokens - self.ledger.spent_today() if self.daily_tokens else None
        )
        usage = Usage()
        # From the check's start where it is known: a large request's verifier may
        # have used much of the worker's time already.
        started = _started.get()
        deadline = (time.monotonic() if started is None else started) + self.seconds
        with ThreadPoolExecutor(max_workers=min(len(todo), self.concurrency)) as pool:
            done = list(pool.map(lambda k: self._ask(items[k], budget, deadline), todo))
        for k, (outcome, spent) in zip(todo, done, strict=True):
            outcomes[k] = outcome
            usage.add(spent)
            if outcome.ruling is not None:
                self._cache.put(keys[k], outcome.ruling)
        if usage.calls:
            self.ledger.record(usage)
            if meter is not None:
                meter.add(usage)
            logger.info(
                "llm judge: %d claims, %d calls (%d failed), %d tokens, %.2f s",
                len(todo),
                usage.calls,
                usage.failures,
                usage.tokens,
                usage.seconds,
            )
        return outcomes

    def _key(self, item: Escalated) -> str:
        text = json.dumps([self.endpoint.url, self.endpoint.model, messages(item)])
        return hashlib.sha256(text.encode()).hexdigest()

    def _ask(self, item: Escalated, budget: _Budget, deadline: float) -> tuple[Outcome, Usage]:
        """The ruling on one claim: a second request when the first answer is malformed.
        A claim waits for a free slot (a server taking one request at a time is queued
        for, not timed out) until the deadline."""
        usage = Usage()
        conversation = messages(item)
        for _ in range(2):
            if not budget.allows():
                return Outcome(None, DAILY_CAP), usage
            if self.pause.paused():
                return Outcome(None, UNAVAILABLE), usage
            left = deadline - time.monotonic()
            if left <= 0 or not self._slots.acquire(timeout=left):
                return Outcome(None, DEADLINE), usage
            try:
                if self.pause.paused():  # it failed again while this claim waited
                    return Outcome(None, UNAVAILABLE), usage
                reply = complete(self.endpoint, conversation, deadline)
            except EndpointError as exc:
                usage.add(Usage(calls=exc.requests, failures=1, seconds=exc.seconds))
                self.pause.failed(exc.reason)
                return Outcome(None, exc.reason), usage
            finally:
                self._slots.release()
            self.pause.answered()
            spent = Usage(
                calls=reply.requests,
                prompt_tokens=reply.prompt_tokens,
                completion_tokens=reply.completion_tokens,
                seconds=reply.seconds,
            )
            usage.add(spent)
            budget.spend(spent.tokens)
            ruling = parse_ruling(reply.content, len(item.evidence))
            if ruling is not None:
                usage.ruled += 1
                return Outcome(ruling), usage
            conversation = [
                *conversation,
                {"role": "assistant", "content": reply.content},
                {"role": "user", "content": RETRY},
            ]
        usage.failures += 1
        return Outcome(None, BAD_ANSWER), usage
