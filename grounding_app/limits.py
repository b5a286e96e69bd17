"""What one client may send: whole requests up to a size, and requests at a rate.

This module judges; it answers nothing. Its callers turn a request over the size or a
client over its rate into the page or the API error that fits (`api.middleware`,
`api.auth`, the sign-in view), so the limits sit below every app.

Rate limits count in Django's "limits" cache with fixed windows (`add` then `incr`,
both atomic across processes): Redis when REDIS_URL is set, else a table in the
database (`grounding_app.counters`), so every gunicorn worker and every machine shares
the count. A hit is counted before it is judged, so concurrent requests each see their
own number and no more than `limit` pass. A window lets at most `limit` through; across
a window boundary a burst of up to twice that is possible, which is the price of one
counter per client. When the store itself fails the request is let through and the
failure logged: a broken counter must not take the API down.
"""

from __future__ import annotations

import hashlib
import logging
import time
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import caches
from django.http import HttpRequest

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class RateLimit:
    """At most `limit` hits per `window` seconds for each client; 0 turns it off."""

    scope: str
    limit: int
    window: int

    def _key(self, client: str) -> str:
        # Hashed: a client id can be any length or character, cache keys cannot.
        digest = hashlib.sha256(client.encode("utf-8", "surrogatepass")).hexdigest()[:32]
        return f"ratelimit:{self.scope}:{digest}:{int(time.time()) // self.window}"

    def retry_after(self) -> int:
        """Seconds until the current window ends."""
        return self.window - int(time.time()) % self.window

    def hit(self, client: str) -> int:
        """Count one hit and return the count in this window (0 when off)."""
        if not self.limit:
            return 0
        key, cache = self._key(client), caches["limits"]
        try:
            cache.add(key, 0, timeout=self.window + 1)
            return int(cache.incr(key))
        except ValueError:  # the key expired between add and incr: a new window
            cache.add(key, 1, timeout=self.window + 1)
            return 1
        except Exception:
            logger.exception("rate-limit cache unavailable; not limiting")
            return 0

    def release(self, client: str) -> None:
        """Take back one hit of this window (an attempt that turned out not to count)."""
        if not self.limit:
            return
        try:
            caches["limits"].decr(self._key(client))
        except ValueError:  # its window has ended
            pass
        except Exception:
            logger.exception("rate-limit cache unavailable; hit not taken back")

    def exceeded(self, count: int) -> bool:
        return bool(self.limit) and count > self.limit


def api_limit() -> RateLimit:
    return RateLimit("api", settings.API_RATE_LIMIT, max(1, settings.API_RATE_WINDOW))


def login_limit() -> RateLimit:
    return RateLimit("login", settings.LOGIN_RATE_LIMIT, max(1, settings.LOGIN_RATE_WINDOW))


def client_ip(request: HttpRequest) -> str:
    """The client's address: CLIENT_IP_HEADER's last hop when configured, else REMOTE_ADDR."""
    if settings.CLIENT_IP_HEADER:
        forwarded = request.META.get(settings.CLIENT_IP_HEADER, "")
        hops = [hop.strip() for hop in forwarded.split(",") if hop.strip()]
        if hops:
            return hops[-1]
    return request.META.get("REMOTE_ADDR", "")


def declared_too_large(request: HttpRequest) -> bool:
    """Whether the request declares a body over MAX_REQUEST_BYTES, known before reading it.

    Django bounds form fields and JSON bodies (DATA_UPLOAD_MAX_MEMORY_SIZE) but streams
    file uploads to disk without limit; this bounds everything, uploads included. A
    body without Content-Length is never read by Django, so the header is the size.
    The answer (a page, or the API's envelope) is `api.middleware`'s to build.
    """
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = 0  # Django reads such a body as empty
    return length > settings.MAX_REQUEST_BYTES
