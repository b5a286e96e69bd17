"""The traces sweeper every batch worker runs: it assembles due traces.

Assembly is a database pass (read the waiting spans, append lines, delete them), never
a request's work: the receiver only stores spans. Every worker runs one sweeper thread
beside its pool (`common/sweeper.py`, the one batch's sweeper is too), so traces are
assembled while any worker lives, and two workers never assemble one trace (see `services._claim`).
"""

from __future__ import annotations

import logging
from typing import Any

from celery.signals import worker_ready, worker_shutdown
from django.conf import settings
from django.db import close_old_connections

from grounding_app.common.sweeper import Sweeper
from grounding_app.traces import services

logger = logging.getLogger(__name__)

sweeper = Sweeper("traces sweeper", services.sweep, close_old_connections, logger)


@worker_ready.connect
def start_sweeper(**kwargs: Any) -> None:
    sweeper.start(max(0.1, settings.TRACES_SWEEP_SECONDS))


@worker_shutdown.connect
def stop_sweeper(**kwargs: Any) -> None:
    sweeper.stop()
