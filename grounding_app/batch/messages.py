"""The Celery messages of batch jobs, sent by task name.

Intake and the sweeper send them; `tasks.py` runs them and imports both, so sending by
name (never through the task objects) keeps the worker's module out of the senders'
imports and the files without a cycle. The names are the ones `tasks.py` registers.
The broker is only a doorbell (see `intake`): a message that cannot be sent delays
its work until the sweeper sends it again, and is never lost.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from django.conf import settings

from grounding_app.batch import queueing
from grounding_app.celery import app

logger = logging.getLogger(__name__)

PROCESS_CHUNK = "batch.process_chunk"
SPLIT_UPLOAD = "batch.split_upload"
SEND_BATCH = 100


def send(chunk_ids: list[int]) -> None:
    """Queue one task per chunk on the configured broker and queue, marking every
    hundred as sent, so what a dying process did not send is found by the sweeper."""
    with app.connection_for_write(settings.CELERY_BROKER_URL) as connection:
        for start in range(0, len(chunk_ids), SEND_BATCH):
            part = chunk_ids[start : start + SEND_BATCH]
            for chunk_id in part:
                app.send_task(
                    PROCESS_CHUNK,
                    (chunk_id,),
                    connection=connection,
                    queue=settings.CELERY_TASK_DEFAULT_QUEUE,
                )
            queueing.mark_sent(part)


def send_split(job_id: int) -> None:
    """Ask a worker to split the job's upload; a broker that is down only delays it
    (the sweeper splits what waits)."""
    try:
        app.send_task(SPLIT_UPLOAD, (job_id,), queue=settings.CELERY_TASK_DEFAULT_QUEUE)
    except Exception:
        logger.exception("could not send a batch split to the broker; the sweeper will split")


def send_chunks(ids: Iterable[int]) -> None:
    """Ring the doorbell for each chunk; a broker that is down only delays the job
    (the sweeper sends queued chunks again after BATCH_QUEUED_TIMEOUT)."""
    try:
        send(list(ids))
    except Exception:
        logger.exception("could not send batch chunks to the broker; the sweeper will retry")
