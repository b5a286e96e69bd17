"""Celery tasks of batch jobs: one task per chunk, and the sweeper every worker runs.

The task body is `services.run_chunk`; everything it writes is idempotent, so Celery
may deliver a chunk more than once (acks_late) without a line being written twice.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from celery.signals import worker_ready, worker_shutdown
from django.conf import settings
from django.db import close_old_connections

from grounding_app.batch import services
from grounding_app.celery import app

logger = logging.getLogger(__name__)

_stop = threading.Event()


@app.task(name="batch.process_chunk", acks_late=True, reject_on_worker_lost=True)
def process_chunk(chunk_id: int) -> int:
    try:
        return services.run_chunk(chunk_id)
    finally:
        close_old_connections()


def send(chunk_ids: list[int]) -> None:
    """Queue one task per chunk on the configured broker and queue."""
    with app.connection_for_write(settings.CELERY_BROKER_URL) as connection:
        for chunk_id in chunk_ids:
            process_chunk.apply_async(
                (chunk_id,), connection=connection, queue=settings.CELERY_TASK_DEFAULT_QUEUE
            )


def prune_consumed_messages() -> None:
    """Delete the rows kombu's SQLAlchemy transport leaves behind: it marks a message
    invisible when it hands it out and never deletes it."""
    url = settings.CELERY_BROKER_URL
    if not url.startswith("sqla+"):
        return
    from sqlalchemy import create_engine, text

    engine = create_engine(url.removeprefix("sqla+"))
    try:
        with engine.begin() as connection:
            connection.execute(
                text(
                    "DELETE FROM kombu_message WHERE visible = :no "
                    "AND timestamp < datetime('now', 'localtime', '-1 hour')"
                ),
                {"no": False},
            )
    except Exception:  # the table is made by the first worker; nothing to prune before
        logger.debug("no consumed broker messages to prune", exc_info=True)
    finally:
        engine.dispose()


def sweep_forever(interval: float) -> None:
    while not _stop.wait(interval):
        try:
            services.requeue_stalled()
            prune_consumed_messages()
        except Exception:
            logger.exception("batch sweeper failed; trying again in %s s", interval)
        finally:
            close_old_connections()


@worker_ready.connect
def start_sweeper(**kwargs: Any) -> None:
    """Every worker sweeps, so chunks of a dead worker are sent again while any lives."""
    _stop.clear()
    threading.Thread(
        target=sweep_forever,
        args=(settings.BATCH_SWEEP_SECONDS,),
        name="batch-sweeper",
        daemon=True,
    ).start()


@worker_shutdown.connect
def stop_sweeper(**kwargs: Any) -> None:
    _stop.set()
