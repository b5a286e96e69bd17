"""`grounding_app.wsgi.BodyFraming`: a chunked body reaches Django with its length, and a
body an early answer left unread is drained (up to MAX_DRAIN_BYTES) before it goes out.
Through gunicorn: tests/test_serve_uploads.py."""

from __future__ import annotations

import io
from collections.abc import Iterable
from typing import Any

from grounding_app.wsgi import BodyFraming

LIMIT, DRAIN = 100, 1000


class Seen:
    def __init__(self, reads: int | None = None) -> None:
        self.reads, self.length, self.body = reads, "", b""

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        """Read `reads` bytes of the body (all of CONTENT_LENGTH when None), as Django does."""
        self.length = environ.get("CONTENT_LENGTH", "")
        wanted = int(self.length or 0) if self.reads is None else self.reads
        self.body = environ["wsgi.input"].read(wanted) if wanted else b""
        return [b"ok"]


def _call(app: Seen, body: bytes, **headers: str) -> io.BytesIO:
    stream = io.BytesIO(body)
    environ = {"wsgi.input": stream, **headers}
    BodyFraming(app, LIMIT, DRAIN)(environ, lambda *a: None)
    return stream


def test_a_chunked_body_reaches_the_app_with_its_length() -> None:
    app = Seen()
    _call(app, b"x" * 60, HTTP_TRANSFER_ENCODING="chunked")
    assert (app.length, app.body) == ("60", b"x" * 60)


def test_a_chunked_body_over_the_limit_is_drained_and_declared_too_large() -> None:
    app = Seen(reads=0)
    stream = _call(app, b"x" * 500, HTTP_TRANSFER_ENCODING="chunked")
    assert app.length == "500" and stream.tell() == 500  # the 413 middleware sees 500


def test_what_an_early_answer_left_unread_is_drained() -> None:
    stream = _call(Seen(reads=0), b"x" * 500, CONTENT_LENGTH="500")
    assert stream.tell() == 500
    stream = _call(Seen(reads=30), b"x" * 500, CONTENT_LENGTH="500")
    assert stream.tell() == 500


def test_a_body_declared_over_the_drain_bound_is_left_unread() -> None:
    stream = _call(Seen(reads=0), b"x" * 2000, CONTENT_LENGTH="2000")
    assert stream.tell() == 0
