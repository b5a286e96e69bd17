"""The traces sweeper every batch worker runs: it assembles due traces.

Assembly is a database pass (read the waiting spans, append lines, delete them), never
a request's work: the receiver only stores spans. Every worker runs one sweeper thread
beside its pool, as batch's own sweeper (`batch.tasks`), so traces are assembled while
any worker lives, and two workers never assemble one trace (see `services._claim`).
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from celery.signals import worker_ready, worker_shutdown
from django.conf import settings
from django.db import close_old_connections

from grounding_app.traces import services

logger = logging.getLogger(__name__)

_stop = threading.Event()


def sweep_forever(interval: float) -> None:
    while True:
        try:
            services.sweep()
        except Exception:
            logger.exception("traces sweeper failed; trying again in %s s", interval)
        finally:
            close_old_connections()
        if _stop.wait(interval):
            return


@worker_ready.connect
def start_sweeper(**kwargs: Any) -> None:
    _stop.clear()
    threading.Thread(
        target=sweep_forever,
        args=(max(0.1, settings.TRACES_SWEEP_SECONDS),),
        name="traces-sweeper",
        daemon=True,
    ).start()


@worker_shutdown.connect
def stop_sweeper(**kwargs: Any) -> None:
    _stop.set()
