"""Celery tasks of batch jobs: one message per chunk, and the sweeper every worker runs.

A message is a doorbell (`queueing.claim_next`): the worker that takes it runs the
fairest waiting chunk of an active job, not necessarily the one the message names, so
messages of a cancelled job cost a query each and block nobody. The body is
`running.run_chunk`; everything it writes is idempotent, so Celery may deliver a
message more than once (acks_late) without a line being written twice. The sweeper
thread also writes the worker's heartbeat. Messages are sent by name from `messages`,
which this module imports and which imports nothing of it.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from celery.signals import worker_ready, worker_shutdown
from django.conf import settings
from django.db import close_old_connections

from grounding_app.batch import queueing
from grounding_app.batch.intake import split_job, split_waiting
from grounding_app.batch.messages import PROCESS_CHUNK, SPLIT_UPLOAD, send_chunks
from grounding_app.batch.running import requeue_stalled, run_chunk, worker_name
from grounding_app.celery import app
from grounding_app.common.sweeper import Sweeper

logger = logging.getLogger(__name__)


@app.task(name=PROCESS_CHUNK, acks_late=True, reject_on_worker_lost=True)
def process_chunk(chunk_id: int) -> int:
    """Run the fairest waiting chunk; `chunk_id`, the chunk this message was sent for,
    only appears in the log when nothing waits any more."""
    try:
        claimed = queueing.claim_next()
        if claimed is None:
            logger.debug("message for batch chunk %s: no chunk waits", chunk_id)
            return 0
        return run_chunk(claimed)
    finally:
        close_old_connections()


@app.task(name=SPLIT_UPLOAD, acks_late=True, reject_on_worker_lost=True)
def split_upload(job_id: int) -> bool:
    """Split a large upload into lines and chunks (`intake.split_job`)."""
    try:
        return split_job(job_id)
    finally:
        close_old_connections()


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


def sweep() -> None:
    """One pass: say this worker lives, take back stalled chunks, split waiting uploads,
    send what a dying process never sent, and prune the broker's consumed rows."""
    queueing.heartbeat(worker_name())
    requeue_stalled()
    split_waiting(timedelta(seconds=settings.BATCH_LEASE_SECONDS))
    if unsent := queueing.take_unsent():
        logger.warning("sending %d batch chunks that were never sent", len(unsent))
        send_chunks(unsent)
    prune_consumed_messages()


sweeper = Sweeper("batch sweeper", sweep, close_old_connections, logger)


@worker_ready.connect
def start_sweeper(**kwargs: Any) -> None:
    """Every worker sweeps, so chunks of a dead worker are sent again while any lives."""
    sweeper.start(settings.BATCH_SWEEP_SECONDS)


@worker_shutdown.connect
def stop_sweeper(**kwargs: Any) -> None:
    """Stop sweeping and say so: `grounding_batch` then knows at once nobody serves."""
    sweeper.stop()
    try:
        queueing.forget(worker_name())
    except Exception:
        logger.exception("could not remove this worker's heartbeat")
    finally:
        close_old_connections()
