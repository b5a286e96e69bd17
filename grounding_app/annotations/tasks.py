"""The import job's Celery task (`jobs.run`), on the batch workers' app and queue.

Acknowledged when taken, as the Verifier page's adaptation is: a worker killed
mid-import leaves the job running rather than have the broker start it again elsewhere.
"""

from __future__ import annotations

from django.conf import settings
from django.db import close_old_connections

from grounding_app.annotations import jobs
from grounding_app.celery import app


@app.task(name="annotations.run_import", acks_late=False)
def run_import(job_id: int) -> bool:
    try:
        return jobs.run(job_id)
    finally:
        close_old_connections()


def send_import(job_id: int) -> None:
    with app.connection_for_write(settings.CELERY_BROKER_URL) as connection:
        run_import.apply_async(
            (job_id,), connection=connection, queue=settings.CELERY_TASK_DEFAULT_QUEUE
        )
