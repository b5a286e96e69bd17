"""The Celery message of labeling imports, sent by task name.

`jobs.py` sends it; `tasks.py` runs the job and imports `jobs`, so sending by name
(never through the task object) keeps the two files without a cycle. The name is the
one `tasks.py` registers.
"""

from __future__ import annotations

from django.conf import settings

from grounding_app.celery import app

RUN_IMPORT = "annotations.run_import"


def send_import(job_id: int) -> None:
    with app.connection_for_write(settings.CELERY_BROKER_URL) as connection:
        app.send_task(
            RUN_IMPORT,
            (job_id,),
            connection=connection,
            queue=settings.CELERY_TASK_DEFAULT_QUEUE,
        )
