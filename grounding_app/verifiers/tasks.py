"""The adaptation's Celery task, on the batch workers' app and queue; it is sent by name
from `messages.py`.

Acknowledged when taken, not late: a worker killed mid-training leaves the job running
(the page marks it stalled) instead of the broker starting the whole training again on
another worker, possibly over and over.
"""

from __future__ import annotations

from django.db import close_old_connections

from grounding_app.celery import app
from grounding_app.verifiers import services
from grounding_app.verifiers.messages import ADAPT


@app.task(name=ADAPT, acks_late=False)
def adapt(job_id: int) -> None:
    try:
        services.run(job_id)
    finally:
        close_old_connections()
