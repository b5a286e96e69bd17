"""WSGI entry point (gunicorn grounding_app.wsgi), with the request body framed for Django.

Django reads CONTENT_LENGTH bytes of a body and nothing more, so a body sent with
`Transfer-Encoding: chunked` (no length; OTLP exporters and streaming clients send so)
would read as empty: a trace answered 200 and never stored, a JSON body refused as
malformed. `BodyFraming` reads such a body here, up to MAX_REQUEST_BYTES, and hands
Django the bytes with their length; a longer one is refused with 413
(`api.middleware`, which sees the length).

An answer given before the body is read (413 for a body over the limit, 429, 401) must
not leave the body unread: a server that closes its socket with unread bytes in it makes
the kernel reset the connection, and the client, still sending, sees a reset or a TLS
EOF instead of the answer. So what the app left unread is read and dropped before the
answer goes out, up to MAX_DRAIN_BYTES; only a client that declares more than that is
answered without it.

A serving process (gunicorn's worker, runserver) starts its background work here, not
in an app's `ready()`, which every command runs too: loading the active verifier with
GROUNDING_PRELOAD on (`migrate` on a new database would read the verifier's table before
it exists) and purging expired data every RETENTION_PURGE_INTERVAL seconds (a purge
started during app initialisation draws Django's warning about such queries).
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable, Iterable
from typing import Any

from django.conf import settings
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "grounding_app.settings")

StartResponse = Callable[..., Any]
WsgiApp = Callable[[dict[str, Any], StartResponse], Iterable[bytes]]

BLOCK = 64 * 1024


def _declared_length(environ: dict[str, Any]) -> int:
    try:
        return max(0, int(environ.get("CONTENT_LENGTH") or 0))
    except ValueError:
        return 0  # Django reads such a body as empty; so do we


def _chunked(environ: dict[str, Any]) -> bool:
    encoding = str(environ.get("HTTP_TRANSFER_ENCODING", "")).lower()
    return "chunked" in encoding and not environ.get("CONTENT_LENGTH")


def _read(stream: Any, most: int) -> bytes:
    """Up to `most` bytes of the stream, fewer where it ends first."""
    parts, left = [], most
    while left > 0:
        block = stream.read(min(BLOCK, left))
        if not block:
            break
        parts.append(block)
        left -= len(block)
    return b"".join(parts)


def _drain(stream: Any, most: int) -> int:
    """Read and drop up to `most` bytes; returns how many were read."""
    read = 0
    while read < most:
        block = stream.read(min(BLOCK, most - read))
        if not block:
            break
        read += len(block)
    return read


class _Counted:
    """The server's input stream, counting what the app reads of it."""

    def __init__(self, stream: Any) -> None:
        self.stream, self.consumed = stream, 0

    def read(self, size: int = -1, /) -> bytes:
        data: bytes = self.stream.read(size)
        self.consumed += len(data)
        return data

    def readline(self, size: int = -1, /) -> bytes:
        line: bytes = self.stream.readline(size)
        self.consumed += len(line)
        return line


class BodyFraming:
    """Give Django a chunked body with its length; drain what an early answer left unread."""

    def __init__(self, app: WsgiApp, limit: int, drain_limit: int) -> None:
        self.app, self.limit, self.drain_limit = app, limit, drain_limit

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        stream = environ.get("wsgi.input")
        if stream is None:
            return self.app(environ, start_response)
        if _chunked(environ):
            body = _read(stream, self.limit + 1)
            length = len(body)
            if length > self.limit:  # refused as too large, once drained
                length += _drain(stream, max(0, self.drain_limit - length))
                body = b""
            environ["wsgi.input"] = io.BytesIO(body)
            environ["CONTENT_LENGTH"] = str(length)
            return self.app(environ, start_response)
        declared = _declared_length(environ)
        counted = _Counted(stream)
        environ["wsgi.input"] = counted
        response = self.app(environ, start_response)
        if declared <= self.drain_limit:
            _drain(stream, declared - counted.consumed)
        return response


def _start_background_work() -> None:
    # Imported once the apps are loaded.
    from grounding_app.active_verifier.checker import checker
    from grounding_app.retention.scheduler import start_purging

    if settings.GROUNDING_PRELOAD:
        checker().warm_up_in_background()
    if settings.RETENTION_PURGE_INTERVAL:
        start_purging(settings.RETENTION_PURGE_INTERVAL)


application = BodyFraming(
    get_wsgi_application(), settings.MAX_REQUEST_BYTES, settings.MAX_DRAIN_BYTES
)
_start_background_work()
