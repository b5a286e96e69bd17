"""A real local HTTP server speaking the chat-completions protocol, with scripted answers.

Each request takes the next step of the script (the last one repeats): an answer's
content (with `usage`), an HTTP status, or a delay before the answer; or a hostile reply:
a body trickled a byte at a time, a redirect, a raw body (oversized, nested deep, lying
counts) or an endless one. It keeps every request's body and headers, the most requests
it ever had in flight at once, and the response formats it takes (others: 400). With
`serial`, it serves one request at a time, as a small local model server does.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, HTTPServer, ThreadingHTTPServer
from typing import Any

TOKENS = (40, 10)  # prompt and completion tokens each answer reports
ALL_FORMATS = frozenset({"json_schema", "json_object"})


@dataclass(frozen=True)
class Step:
    content: str = ""
    status: int = 200
    delay: float = 0.0
    trickle: float = 0.0  # seconds between the body's bytes
    location: str = ""  # with a 3xx status: where to
    raw: bytes | None = None  # the whole body, as is
    endless: bool = False  # a body that never ends (no Content-Length)
    usage: dict[str, Any] | None = None


def answer(verdict: str, words: tuple[str, ...] = (), passage: int | None = None) -> Step:
    body = {"verdict": verdict, "unsupported_words": list(words), "supporting_passage": passage}
    return Step(json.dumps(body))


def completion(content: str, usage: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
        "usage": usage
        if usage is not None
        else {
            "prompt_tokens": TOKENS[0],
            "completion_tokens": TOKENS[1],
            "total_tokens": sum(TOKENS),
        },
    }


@dataclass
class ChatServer:
    script: list[Step]
    formats: frozenset[str] = ALL_FORMATS
    refusal: int = 400  # the status refusing a format (llama-cpp-python's server: 500)
    url: str = ""
    requests: list[dict[str, Any]] = field(default_factory=list)
    most_in_flight: int = 0
    sent_bytes: int = 0  # of endless bodies, before the client hung up
    _in_flight: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def take(self, body: dict[str, Any]) -> Step:
        with self._lock:
            self.requests.append(body)
            self._in_flight += 1
            self.most_in_flight = max(self.most_in_flight, self._in_flight)
            return self.script.pop(0) if len(self.script) > 1 else self.script[0]

    def leave(self) -> None:
        with self._lock:
            self._in_flight -= 1


def _handler(server: ChatServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # a redirect followed as a GET is recorded, never answered
            server.take({"path": self.path, "auth": self.headers["Authorization"]})
            server.leave()
            self._send(404, {"error": {"message": "no GET here"}})

        def do_POST(self) -> None:
            length = int(self.headers["Content-Length"])
            body = json.loads(self.rfile.read(length))
            step = server.take({"path": self.path, "auth": self.headers["Authorization"], **body})
            try:
                time.sleep(step.delay)
                wanted = (body.get("response_format") or {}).get("type")
                if wanted is not None and wanted not in server.formats:
                    self._send(server.refusal, {"error": {"message": f"response_format {wanted}"}})
                elif step.location:
                    self.send_response(step.status)
                    self.send_header("Location", step.location)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                elif step.status != 200:
                    self._send(step.status, {"error": {"message": "scripted"}})
                elif step.endless:
                    self._endless()
                elif step.raw is not None:
                    self._write(200, step.raw, step.trickle)
                else:
                    data = completion(step.content, step.usage)
                    self._write(200, json.dumps(data).encode(), step.trickle)
            except (BrokenPipeError, ConnectionResetError):  # the client gave up
                pass
            finally:
                server.leave()

        def _endless(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(b'{"pad": "')
            chunk = b"x" * 65536
            while server.sent_bytes < 2_000_000_000:
                self.wfile.write(chunk)
                server.sent_bytes += len(chunk)

        def _write(self, status: int, raw: bytes, trickle: float) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            if not trickle:
                self.wfile.write(raw)
                return
            for k in range(len(raw)):
                self.wfile.write(raw[k : k + 1])
                self.wfile.flush()
                time.sleep(trickle)

        def _send(self, status: int, data: dict[str, Any]) -> None:
            self._write(status, json.dumps(data).encode(), 0.0)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


@contextmanager
def chat_server(
    *script: Step, formats: frozenset[str] = ALL_FORMATS, refusal: int = 400, serial: bool = False
) -> Iterator[ChatServer]:
    state = ChatServer(list(script) or [answer("supported", passage=0)], formats, refusal)
    kind = HTTPServer if serial else ThreadingHTTPServer
    httpd = kind(("127.0.0.1", 0), _handler(state))
    if isinstance(httpd, ThreadingHTTPServer):
        httpd.daemon_threads = True
    state.url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=10)
