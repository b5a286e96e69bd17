"""The Celery app, configured from Django settings (`CELERY_*`), for batch jobs, the
Verifier page's adaptations (`verifiers/tasks.py`) and large labeling imports (Label
Studio exports and JSONL items, `annotations/tasks.py`), all on the same queue.

Start a worker with `celery -A grounding_app.celery worker` (scripts/run does).

Broker: Redis when `REDIS_URL` is set (production, several worker machines), else
kombu's SQLAlchemy transport on a SQLite file under `var/`, so `scripts/run` needs no
server. Tasks are acknowledged late and rejected back to the queue when a pool
process dies, so a crashed child's chunk is redelivered by Celery itself. Neither
embedded kombu transport (SQLAlchemy or filesystem) redelivers a message whose whole
worker was SIGKILLed: both hide a message from the queue when they hand it out and
keep the unacknowledged copy in the dead worker's memory. SQLAlchemy/SQLite was chosen
because handing out is one `BEGIN IMMEDIATE` transaction, so a message goes to exactly
one worker, where the filesystem transport moves files into the temp directory by
copy-and-delete across file systems, and two workers can read the same one. What a
killed worker held is recovered from the database instead: every chunk carries a
lease that its worker pushes after each line, and a sweeper in every worker sends
again a chunk whose lease ran out (`batch.running.requeue_stalled`). On Redis,
acks_late redelivers too, after the visibility timeout; both paths are idempotent.
"""

from __future__ import annotations

import os
import warnings
from typing import Any

from celery import Celery
from celery.signals import celeryd_init
from kombu.transport import TRANSPORT_ALIASES
from kombu.transport import sqlalchemy as kombu_sqlalchemy

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "grounding_app.settings")

# kombu's SQLAlchemy transport (5.x) declares its queue-to-messages relation with
# `lazy="noload"`, which SQLAlchemy 2.1 deprecates because such a relation reads as
# empty. kombu never reads that relation (it queries messages by queue id), so nothing
# is wrong for us; the warning would only reach every worker's start log and the tests.
warnings.filterwarnings(
    "ignore", message=r"The ``noload`` loader strategy is deprecated", category=DeprecationWarning
)


class RecoveringChannel(kombu_sqlalchemy.Channel):
    """kombu's SQLAlchemy channel, giving its database connection back when it closes.

    kombu's own never closes its session, so each reconnect after a failed write (a
    read-only or full `var/`) kept one pooled connection; after 15 the pool was
    exhausted, the wait for a connection timed out, and Celery stopped the worker as an
    "Unrecoverable error". Closing the session returns the connection, so the worker
    reconnects for as long as the fault lasts and carries on after it.
    """

    def close(self) -> None:
        try:
            super().close()  # gives unacknowledged messages back, through the session
        finally:
            if self._session is not None:
                self._session.close()
                self._session = None


class RecoveringTransport(kombu_sqlalchemy.Transport):
    Channel = RecoveringChannel


# The `sqla+...` broker URLs (the embedded default) get the recovering transport.
TRANSPORT_ALIASES["sqla"] = TRANSPORT_ALIASES["sqlalchemy"] = (
    "grounding_app.celery:RecoveringTransport"
)

app = Celery("grounding_app")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks(
    [
        "grounding_app.batch",
        "grounding_app.verifiers",
        "grounding_app.annotations",
        "grounding_app.monitoring",
    ]
)


@celeryd_init.connect
def share_cores(options: dict[str, Any] | None = None, **kwargs: Any) -> None:
    """Share the cores among the pool processes' torch thread pools, unless
    OMP_NUM_THREADS is set, as gunicorn.conf.py does for web workers."""
    cores = os.cpu_count() or 1
    concurrency = int((options or {}).get("concurrency") or cores)
    os.environ.setdefault("OMP_NUM_THREADS", str(max(1, cores // concurrency)))
