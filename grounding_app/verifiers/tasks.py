"""The adaptation's Celery task, on the batch workers' app and queue.

Acknowledged when taken, not late: a worker killed mid-training leaves the job running
(the page marks it stalled) instead of the broker starting the whole training again on
another worker, possibly over and over.
"""

from __future__ import annotations

from django.conf import settings
from django.db import close_old_connections

from grounding_app.celery import app
from grounding_app.verifiers import services


@app.task(name="verifiers.adapt", acks_late=False)
def adapt(job_id: int) -> None:
    try:
        services.run(job_id)
    finally:
        close_old_connections()


def send_adaptation(job_id: int) -> None:
    with app.connection_for_write(settings.CELERY_BROKER_URL) as connection:
        adapt.apply_async(
            (job_id,), connection=connection, queue=settings.CELERY_TASK_DEFAULT_QUEUE
        )
