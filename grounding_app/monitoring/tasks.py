"""Celery side of alerts and sampling: the delivery task, with retries on
MONITORING_WEBHOOK_BACKOFF; the alerts evaluator every worker runs beside its pool (the
one sweeper thread of `common/sweeper.py`, as batch and traces run theirs), every
MONITORING_ALERT_SECONDS; and the sampling scheduler, which looks every
SAMPLING_CHECK_SECONDS whether the day's sampling run has been done and does it once a
UTC day between all the workers (`sampling.run_daily`). `scripts/run` starts a worker
beside the server, and production runs one beside `scripts/serve` (docs/operations.md),
so no cron entry or Celery beat is needed."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from celery import Task
from celery.signals import worker_ready, worker_shutdown
from django.conf import settings
from django.db import close_old_connections, transaction
from django.utils import timezone

from grounding_app.celery import app
from grounding_app.common.sweeper import Sweeper
from grounding_app.monitoring import alerts, sampling

logger = logging.getLogger(__name__)


@app.task(name="monitoring.deliver_alert", bind=True, acks_late=True, max_retries=None)
def deliver_alert(self: Task, delivery_id: int) -> None:
    """Post one delivery; after a failure, again when its backoff says (the count of
    attempts is the row's, not this message's)."""
    try:
        wait = alerts.attempt(delivery_id)
    finally:
        close_old_connections()
    if wait is not None:
        raise self.retry(countdown=wait)


def send(delivery_ids: Iterable[int]) -> None:
    """Queue the deliveries once the transaction that made them commits; a broker that
    is down only delays them (the evaluator sends stranded deliveries again)."""
    ids = list(delivery_ids)

    def queue() -> None:
        try:
            for delivery_id in ids:
                deliver_alert.apply_async((delivery_id,), queue=settings.CELERY_TASK_DEFAULT_QUEUE)
        except Exception:
            logger.exception("could not send alert deliveries; the evaluator will retry")

    transaction.on_commit(queue)


def _interval() -> float:
    return max(0.1, settings.MONITORING_ALERT_SECONDS)


def evaluate_once() -> None:
    """New alerts, then deliveries stranded for more than a pass and a timeout."""
    send(alerts.evaluate())
    send(alerts.stranded(_interval() + 2 * settings.MONITORING_WEBHOOK_TIMEOUT + 30))


evaluator = Sweeper("alerts evaluator", evaluate_once, close_old_connections, logger)


@worker_ready.connect
def start_evaluator(**kwargs: Any) -> None:
    evaluator.start(_interval())


@worker_shutdown.connect
def stop_evaluator(**kwargs: Any) -> None:
    evaluator.stop()


def sample_once() -> None:
    """Run today's sampling if no worker has yet."""
    sent = sampling.run_daily(timezone.now().date())
    if sent is not None:
        logger.info("sampling run: %d claims sent by %d rules", sum(sent.values()), len(sent))


sampler = Sweeper("sampling scheduler", sample_once, close_old_connections, logger)


@worker_ready.connect
def start_sampler(**kwargs: Any) -> None:
    sampler.start(max(0.1, settings.SAMPLING_CHECK_SECONDS))


@worker_shutdown.connect
def stop_sampler(**kwargs: Any) -> None:
    sampler.stop()
