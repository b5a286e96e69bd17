"""A real webhook receiver on 127.0.0.1 for the alert tests: a threaded http.server that
records every POST, checks its HMAC against the rule's secret, and can answer 503 or a
redirect instead of 200 (or be started late, refusing connections until then), or
trickle its headers a byte at a time."""

from __future__ import annotations

import hashlib
import hmac
import json
import socket
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes
    status: int
    signed: bool | None  # the HMAC matched; None when no secret was set

    @property
    def payload(self) -> Any:
        return json.loads(self.body)


@dataclass
class Receiver:
    secret: str = ""
    answer: int = 200  # what POSTs get: 200, 503 or 302
    trickle: float = 0.0  # > 0: a header byte every this many seconds, for up to 30 s
    port: int = 0
    received: list[Received] = field(default_factory=list)
    _server: ThreadingHTTPServer | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook"

    def reserve(self) -> None:
        """Pick a free port without listening on it: connections are refused."""
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]

    def start(self) -> None:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                signed = None
                if receiver.secret:
                    expected = hmac.new(receiver.secret.encode(), body, hashlib.sha256)
                    sent = self.headers.get("X-Grounding-Signature", "")
                    signed = hmac.compare_digest(sent, "sha256=" + expected.hexdigest())
                status = receiver.answer
                with receiver._lock:
                    receiver.received.append(
                        Received(self.path, dict(self.headers), body, status, signed)
                    )
                if receiver.trickle:
                    self._trickle()
                    return
                self.send_response(status)
                if status == 302:
                    self.send_header("Location", "/elsewhere")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def _trickle(self) -> None:
                self.wfile.write(b"HTTP/1.1 200 OK\r\nX-Slow: ")
                stop = time.monotonic() + 30
                try:
                    while time.monotonic() < stop:
                        self.wfile.write(b"a")
                        self.wfile.flush()
                        time.sleep(receiver.trickle)
                except OSError:
                    pass  # the client gave up

            def log_message(self, format: str, *args: Any) -> None:
                pass

        ThreadingHTTPServer.allow_reuse_address = True
        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.port = self._server.server_address[1]
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def accepted(self) -> list[Received]:
        with self._lock:
            return [r for r in self.received if 200 <= r.status < 300]
