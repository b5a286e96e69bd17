"""Celery side of alerts: the delivery task, with retries on MONITORING_WEBHOOK_BACKOFF,
and the evaluator thread every worker runs beside its pool (as the batch and traces
sweepers do), every MONITORING_ALERT_SECONDS."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable
from typing import Any

from celery import Task
from celery.signals import worker_ready, worker_shutdown
from django.conf import settings
from django.db import close_old_connections, transaction

from grounding_app.celery import app
from grounding_app.monitoring import alerts

logger = logging.getLogger(__name__)

_stop = threading.Event()


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


def evaluate_once(interval: float) -> None:
    """New alerts, then deliveries stranded for more than a pass and a timeout."""
    send(alerts.evaluate())
    send(alerts.stranded(interval + 2 * settings.MONITORING_WEBHOOK_TIMEOUT + 30))


def evaluate_forever(interval: float) -> None:
    while True:
        try:
            evaluate_once(interval)
        except Exception:
            logger.exception("alert evaluation failed; trying again in %s s", interval)
        finally:
            close_old_connections()
        if _stop.wait(interval):
            return


@worker_ready.connect
def start_evaluator(**kwargs: Any) -> None:
    _stop.clear()
    threading.Thread(
        target=evaluate_forever,
        args=(max(0.1, settings.MONITORING_ALERT_SECONDS),),
        name="alerts-evaluator",
        daemon=True,
    ).start()


@worker_shutdown.connect
def stop_evaluator(**kwargs: Any) -> None:
    _stop.set()
