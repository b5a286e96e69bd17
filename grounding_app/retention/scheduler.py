"""Purge on a schedule inside the server process, for `scripts/run` and small installs.

Started by the app (RetentionConfig.ready) when RETENTION_PURGE_INTERVAL is set; a
daemon thread, so it never keeps a process alive. Production runs `purge_expired` from
cron or a systemd timer instead (docs/operations.md#retention), once, rather than once
per server worker.
"""

from __future__ import annotations

import logging
import threading

from django.db import close_old_connections, connection

logger = logging.getLogger(__name__)


def _run_forever(interval: float, stop: threading.Event) -> None:
    from grounding_app.retention.models import Purge
    from grounding_app.retention.purge import describe_counts, purge_expired

    while not stop.is_set():
        try:
            close_old_connections()
            purge = purge_expired(trigger=Purge.Trigger.SCHEDULE)
            if purge.total:
                logger.info("Purged expired data: %s", ", ".join(describe_counts(purge.counts)))
        except Exception:  # the next round tries again; the server must stay up
            logger.exception("scheduled purge failed")
        finally:
            connection.close()
        stop.wait(interval)


def start_purging(interval: float) -> threading.Event:
    """Purge now and then every `interval` seconds; set the returned event to stop."""
    stop = threading.Event()
    threading.Thread(
        target=_run_forever, args=(interval, stop), name="retention-purge", daemon=True
    ).start()
    return stop
