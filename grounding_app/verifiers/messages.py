"""The Celery message of the Verifier page's adaptations, sent by task name.

`services.py` sends it; `tasks.py` runs the job and imports `services`, so sending by
name (never through the task object) keeps the two files without a cycle. The name is
the one `tasks.py` registers.
"""

from __future__ import annotations

from django.conf import settings

from grounding_app.celery import app

ADAPT = "verifiers.adapt"


def send_adaptation(job_id: int) -> None:
    with app.connection_for_write(settings.CELERY_BROKER_URL) as connection:
        app.send_task(
            ADAPT, (job_id,), connection=connection, queue=settings.CELERY_TASK_DEFAULT_QUEUE
        )
