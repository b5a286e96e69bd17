"""The sweeper thread every Celery worker runs beside its pool (batch chunks, traces).

Both apps need the same loop: a pass every few seconds, a failing pass logged and tried
again at the next, a clean-up after every pass (the apps close their stale database
connections there) and a stop that takes effect at once, not after the next sleep. Plain
Python: the app passes its pass, its clean-up and its logger in.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable


class Sweeper:
    """One named sweeper; `start` on the worker's ready signal, `stop` on its shutdown."""

    def __init__(
        self,
        name: str,
        sweep: Callable[[], object],
        after: Callable[[], None],
        logger: logging.Logger,
    ) -> None:
        self.name = name
        self._sweep = sweep
        self._after = after
        self._logger = logger
        self._stop = threading.Event()

    def run(self, interval: float) -> None:
        """Sweep every `interval` seconds until stopped."""
        while True:
            try:
                self._sweep()
            except Exception:
                self._logger.exception("%s failed; trying again in %s s", self.name, interval)
            finally:
                self._after()
            if self._stop.wait(interval):
                return

    def start(self, interval: float) -> threading.Thread:
        self._stop.clear()
        thread = threading.Thread(
            target=self.run, args=(interval,), name=self.name.replace(" ", "-"), daemon=True
        )
        thread.start()
        return thread

    def stop(self) -> None:
        self._stop.set()
