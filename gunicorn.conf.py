"""gunicorn settings for scripts/serve; command-line arguments override them.

Clients may send their API key as `?key=` (Google's REST examples do), and a key must
never reach a log: the access log names the path without its query string, and the
error log blanks `key=` in the request lines gunicorn quotes (a malformed request line,
a crash outside Django).
"""

from __future__ import annotations

import logging
import os
import re
from typing import TYPE_CHECKING

from gunicorn.glogging import Logger

if TYPE_CHECKING:
    from gunicorn.arbiter import Arbiter
    from gunicorn.config import Config

# Behind a reverse proxy keep the loopback default; BIND=0.0.0.0:8000 serves directly.
bind = os.environ.get("BIND", "127.0.0.1:8000")
# Sync workers, one request at a time each: the check is CPU-bound, and every worker
# holds its own copy of the models, so size this to cores and memory.
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
# A worker silent this long is stuck and is replaced (its client gets a 502 from the
# proxy); no valid request takes nearly as long.
timeout = 60
graceful_timeout = 30
# Off: each worker imports the app itself. Preloading would load Django in the master
# and fork it, and the threads started at start-up (the engine warm-up with
# GROUNDING_PRELOAD=1, the retention purger) do not survive a fork; a half-loaded model
# or a lock held by such a thread would be copied into every worker.
preload_app = False
# Addresses whose X-Forwarded-* headers are trusted (the proxy's); gunicorn's default is
# the loopback only.
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1,::1")


def on_starting(server: Arbiter) -> None:
    """Share the cores among the workers' torch thread pools, unless OMP_NUM_THREADS is
    set: workers each with a full pool fight over the cores
    (docs/operations.md#load-and-databases)."""
    threads = max(1, (os.cpu_count() or 1) // server.cfg.workers)
    os.environ.setdefault("OMP_NUM_THREADS", str(threads))


class _BlankKeys(logging.Filter):
    _KEY = re.compile(r"([?&;]key=)[^&;\s'\"#]*", re.IGNORECASE)

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if "key=" in message.lower():
            record.msg, record.args = self._KEY.sub(r"\1(hidden)", message), ()
        return True


_BLANK_KEYS = _BlankKeys()  # one instance: a reload's second setup() adds nothing


class KeylessLogger(Logger):
    def setup(self, cfg: Config) -> None:
        super().setup(cfg)
        self.error_log.addFilter(_BLANK_KEYS)


logger_class = KeylessLogger
accesslog = "-"
errorlog = "-"
# %(U)s is the path without the query string; %(r)s and %(q)s would hold `?key=`. No
# Referer (%(f)s) either: it carries another page's query string.
access_log_format = '%(h)s %(l)s %(u)s %(t)s "%(m)s %(U)s %(H)s" %(s)s %(b)s "%(a)s" %(M)sms'
