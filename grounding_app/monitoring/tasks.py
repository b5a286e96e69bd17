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
def deliver_alert(self: Task, delivery_id: int) -> bool | None:
    """Post one delivery; on failure, again after the next delay of the schedule, and
    give up once the schedule is spent."""
    try:
        delivered = alerts.attempt(delivery_id)
    finally:
        close_old_connections()
    if delivered is False:
        schedule = settings.MONITORING_WEBHOOK_BACKOFF
        tries = self.request.retries
        if tries < len(schedule):
            raise self.retry(countdown=schedule[tries])
        alerts.give_up(delivery_id)
    return delivered


def send(delivery_ids: Iterable[int]) -> None:
    """Queue the deliveries once the transaction that made them commits."""
    ids = list(delivery_ids)

    def queue() -> None:
        for delivery_id in ids:
            deliver_alert.apply_async((delivery_id,), queue=settings.CELERY_TASK_DEFAULT_QUEUE)

    transaction.on_commit(queue)


def evaluate_forever(interval: float) -> None:
    while True:
        try:
            send(alerts.evaluate())
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
