"""A real local HTTP server speaking the chat-completions protocol, with scripted answers.

Each request takes the next step of the script (the last one repeats): an answer's
content (with `usage`), an HTTP status, or a delay before the answer. It keeps every
request's body and the most requests it ever had in flight at once.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

TOKENS = (40, 10)  # prompt and completion tokens each answer reports


@dataclass(frozen=True)
class Step:
    content: str = ""
    status: int = 200
    delay: float = 0.0


def answer(verdict: str, words: tuple[str, ...] = (), passage: int | None = None) -> Step:
    body = {"verdict": verdict, "unsupported_words": list(words), "supporting_passage": passage}
    return Step(json.dumps(body))


@dataclass
class ChatServer:
    script: list[Step]
    url: str = ""
    requests: list[dict[str, Any]] = field(default_factory=list)
    most_in_flight: int = 0
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
        def do_POST(self) -> None:
            length = int(self.headers["Content-Length"])
            body = json.loads(self.rfile.read(length))
            step = server.take({"path": self.path, "auth": self.headers["Authorization"], **body})
            try:
                time.sleep(step.delay)
                if step.status != 200:
                    self._send(step.status, {"error": {"message": "scripted"}})
                    return
                self._send(
                    200,
                    {
                        "id": "chatcmpl-test",
                        "object": "chat.completion",
                        "model": body["model"],
                        "choices": [
                            {
                                "index": 0,
                                "message": {"role": "assistant", "content": step.content},
                                "finish_reason": "stop",
                            }
                        ],
                        "usage": {
                            "prompt_tokens": TOKENS[0],
                            "completion_tokens": TOKENS[1],
                            "total_tokens": sum(TOKENS),
                        },
                    },
                )
            except (BrokenPipeError, ConnectionResetError):  # the client timed out
                pass
            finally:
                server.leave()

        def _send(self, status: int, data: dict[str, Any]) -> None:
            raw = json.dumps(data).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


@contextmanager
def chat_server(*script: Step) -> Iterator[ChatServer]:
    state = ChatServer(list(script) or [answer("supported", passage=0)])
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
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
