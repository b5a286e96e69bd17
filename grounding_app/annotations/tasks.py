"""The import job's Celery task (`jobs.run`), on the batch workers' app and queue; it
is sent by name from `messages.py`.

Acknowledged when taken, as the Verifier page's adaptation is: a worker killed
mid-import leaves the job running rather than have the broker start it again elsewhere.
"""

from __future__ import annotations

from django.db import close_old_connections

from grounding_app.annotations import jobs
from grounding_app.annotations.messages import RUN_IMPORT
from grounding_app.celery import app


@app.task(name=RUN_IMPORT, acks_late=False)
def run_import(job_id: int) -> bool:
    try:
        return jobs.run(job_id)
    finally:
        close_old_connections()
