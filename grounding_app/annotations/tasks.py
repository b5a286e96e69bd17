"""The Label Studio import's Celery task, on the batch workers' app and queue.

Acknowledged when taken, as the Verifier page's adaptation is: a worker killed
mid-import leaves the import running rather than have the broker start it again
elsewhere; importing the same file again is safe (labels already here count as
unchanged, never twice).
"""

from __future__ import annotations

from django.conf import settings
from django.db import close_old_connections

from grounding_app.annotations import label_studio
from grounding_app.celery import app


@app.task(name="annotations.import_label_studio", acks_late=False)
def import_label_studio(job_id: int) -> bool:
    try:
        return label_studio.run_import(job_id)
    finally:
        close_old_connections()


def send(job_id: int) -> None:
    with app.connection_for_write(settings.CELERY_BROKER_URL) as connection:
        import_label_studio.apply_async(
            (job_id,), connection=connection, queue=settings.CELERY_TASK_DEFAULT_QUEUE
        )
