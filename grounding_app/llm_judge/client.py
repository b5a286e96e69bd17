"""One chat-completions exchange: the prompt, the HTTP call and the answer's validation.

httpx over a connection pool whose sockets obey one deadline per call (every connect,
write and read gets only the time left, so a server trickling a byte at a time cannot
stretch a call) and reach only vetted addresses (`common/addresses.py`: no cloud
metadata, no internal address unless LLM_JUDGE_ALLOW names it or the URL names the
loopback itself). Redirects are never followed, so the key goes only to the origin an
admin typed. A reply is trusted with nothing: its body, its JSON's depth and its counts
are bounded, and whatever breaks a bound is a `bad response`.
"""

from __future__ import annotations

import json
import math
import re
import ssl
import threading
import time
from collections.abc import Iterable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from ipaddress import ip_address
from typing import Any
from urllib.parse import urlsplit

import httpcore
import httpx

from grounding_app.common.addresses import RefusedAddress, refuse, vetted
from grounding_app.engine import Escalated, Ruling

SYSTEM = (
    "You check whether a claim is supported by evidence passages. A claim is supported "
    "only when the passages state or directly imply every part of it. Answer with one JSON "
    'object and nothing else: {"verdict": "supported" or "unsupported", '
    '"unsupported_words": [the claim\'s words the passages do not back], '
    '"supporting_passage": the number of the passage that supports it most, or null}.'
)
RETRY = (
    'That was not the JSON object asked for. Answer with the JSON object only: {"verdict": ...}.'
)

# gunicorn's worker timeout is 60 s (gunicorn.conf.py): a check's judging ends well
# before it, whatever the settings, leaving the verifier its share.
CALL_SECONDS = 30  # one call at most
REQUEST_SECONDS = 40  # every call of one check request together
BODY_BYTES = 1_000_000  # a chat completion is a few kB
DEPTH = 32  # JSON nesting a reply may have
TOKENS = 1_000_000  # what one call may report in each count
MAX_TOKENS = 300  # asked of the model: a ruling is a few dozen
WORDS = 64  # unsupported words a ruling may list
ALLOW_SETTING = "LLM_JUDGE_ALLOW"
_LOOPBACK = ("127.0.0.0/8", "::1/128")

# How the reply is asked to be JSON, best first; each endpoint remembers what it took.
SCHEMA, OBJECT, PLAIN = "json_schema", "json_object", "plain"
RULING_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "verdict": {"type": "string", "enum": ["supported", "unsupported"]},
        "unsupported_words": {"type": "array", "items": {"type": "string"}},
        "supporting_passage": {"type": ["integer", "null"]},
    },
    "required": ["verdict", "unsupported_words", "supporting_passage"],
    "additionalProperties": False,
}
_FORMATS: dict[str, dict[str, Any] | None] = {
    SCHEMA: {
        "type": "json_schema",
        "json_schema": {"name": "ruling", "strict": True, "schema": RULING_SCHEMA},
    },
    OBJECT: {"type": "json_object"},
    PLAIN: None,
}
_NEXT = {SCHEMA: OBJECT, OBJECT: PLAIN}


def _refuses_format(status: int, body: bytes) -> bool:
    """A 400 or 422, or a 500 naming response_format (llama-cpp-python's server fails
    its own validation so): the format asked for is not taken."""
    return status in (400, 422) or (status == 500 and b"response_format" in body)


_modes: dict[tuple[str, str], str] = {}


@dataclass(frozen=True)
class Endpoint:
    url: str  # the base URL, e.g. http://localhost:11434/v1
    model: str
    key: str = ""
    timeout: float = 30.0  # one call's deadline, at most CALL_SECONDS
    allow: tuple[str, ...] = ()  # internal hosts and networks it may reach


@dataclass(frozen=True)
class Reply:
    content: str
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    requests: int = 1  # more when the endpoint refused a response_format first


class EndpointError(Exception):
    """The endpoint gave no answer to read; `reason` goes into the claim's fallback note,
    `detail` to the log and the page's try."""

    def __init__(self, reason: str, seconds: float = 0.0, detail: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.seconds = seconds
        self.detail = detail or reason
        self.requests = 1


def messages(item: Escalated) -> list[dict[str, str]]:
    """The prompt: the claim, the earlier context it refers to, the numbered evidence."""
    passages = "\n".join(f"[{k}] {text}" for k, text in enumerate(item.evidence))
    context = f"Earlier context the claim may refer to: {item.context}\n\n" if item.context else ""
    user = f"{context}Evidence passages:\n{passages or '(none)'}\n\nClaim: {item.claim}"
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


def response_format(endpoint: Endpoint) -> str:
    """How this endpoint is asked for JSON now (it starts at the best)."""
    return _modes.get((endpoint.url, endpoint.model), SCHEMA)


# The deadline of the call this thread is making, read by every socket operation.
_deadline: ContextVar[float] = ContextVar("llm_judge_deadline", default=math.inf)


def _left(timeout: float | None, error: type[Exception]) -> float:
    left = _deadline.get() - time.monotonic()
    if left <= 0:
        raise error("the call's deadline passed")
    return left if timeout is None else min(timeout, left)


class _Refused(httpcore.ConnectError):
    """An address the judge may not reach."""


class _Stream(httpcore.NetworkStream):
    """A socket whose every operation ends by the call's deadline."""

    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, _left(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, _left(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.NetworkStream:
        left = _left(timeout, httpcore.ConnectTimeout)
        return _Stream(self._inner.start_tls(ssl_context, server_hostname, left))

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


def _named_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ip_address(host).is_loopback
    except ValueError:
        return False


def origin(url: str) -> tuple[str, str, int]:
    """Scheme, host and port: where a key sent to the URL goes."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    return scheme, (parts.hostname or "").lower(), parts.port or (443 if scheme == "https" else 80)


def refused(url: str, allow: Iterable[str]) -> str | None:
    """Why the URL's host, written as an address, may not be reached; None when it may
    (a name is vetted when connecting)."""
    host = urlsplit(url.strip()).hostname or ""
    try:
        address = ip_address(host)
    except ValueError:
        return None
    extra = _LOOPBACK if address.is_loopback else ()
    try:
        refuse(host, address, (*allow, *extra), ALLOW_SETTING)
    except RefusedAddress as exc:
        return str(exc)
    return None


class _Vetting(httpcore.NetworkBackend):
    """Connects only to the host's vetted addresses (each checked, then connected to
    itself, so a name resolving elsewhere a moment later reaches nothing new)."""

    def __init__(self, allow: tuple[str, ...]) -> None:
        self._allow = allow
        self._sockets = httpcore.SyncBackend()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        allow = (*self._allow, *_LOOPBACK) if _named_loopback(host) else self._allow
        try:
            addresses = vetted(
                host, port, allow, ALLOW_SETTING, _left(timeout, httpcore.ConnectTimeout)
            )
        except RefusedAddress as exc:
            raise _Refused(str(exc)) from exc
        except TimeoutError as exc:
            raise httpcore.ConnectTimeout(str(exc)) from exc
        failure: Exception = httpcore.ConnectError(f"no address for {host}")
        for address in addresses:
            left = _left(timeout, httpcore.ConnectTimeout)
            try:
                inner = self._sockets.connect_tcp(
                    address, port, left, local_address, socket_options
                )
            except httpcore.ConnectError as exc:
                failure = exc
                continue
            return _Stream(inner)
        raise failure

    def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        raise _Refused("no Unix sockets")

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


class _Body(httpx.SyncByteStream):
    def __init__(self, response: httpcore.Response) -> None:
        self._response = response

    def __iter__(self) -> Iterator[bytes]:
        yield from self._response.iter_stream()

    def close(self) -> None:
        self._response.close()


class _Transport(httpx.BaseTransport):
    """httpx's transport over a pool of `_Vetting` connections (httpx's own takes no
    network backend)."""

    def __init__(self, allow: tuple[str, ...]) -> None:
        self._pool = httpcore.ConnectionPool(
            ssl_context=ssl.create_default_context(),
            network_backend=_Vetting(allow),
            max_connections=None,
            retries=0,
        )

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        core = httpcore.Request(
            method=request.method,
            url=httpcore.URL(
                scheme=request.url.raw_scheme,
                host=request.url.raw_host,
                port=request.url.port,
                target=request.url.raw_path,
            ),
            headers=request.headers.raw,
            content=request.read(),
            extensions=request.extensions,
        )
        response = self._pool.handle_request(core)
        return httpx.Response(
            response.status,
            headers=response.headers,
            stream=_Body(response),
            extensions=response.extensions,
        )

    def close(self) -> None:
        self._pool.close()


_clients: dict[tuple[str, ...], httpx.Client] = {}
_clients_lock = threading.Lock()


def _client(allow: tuple[str, ...]) -> httpx.Client:
    """The process's client for an allow-list: connections kept alive between calls."""
    with _clients_lock:
        if allow not in _clients:
            _clients[allow] = httpx.Client(
                transport=_Transport(allow), follow_redirects=False, trust_env=False
            )
        return _clients[allow]


def _depth(text: str) -> int:
    """The deepest nesting of arrays and objects in JSON text (strings skipped)."""
    deepest = depth = 0
    for match in re.finditer(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', text):
        token = match.group()
        if token in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif token in "]}":
            depth -= 1
    return deepest


def loads(text: str) -> Any:
    """JSON of at most DEPTH levels (deeper: ValueError, never a RecursionError)."""
    if _depth(text) > DEPTH:
        raise ValueError(f"JSON nested deeper than {DEPTH}")
    return json.loads(text)


def _count(value: Any) -> int:
    """A token count a reply states: a whole number from 0 to TOKENS."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= TOKENS:
        raise ValueError(f"not a token count: {value!r}")
    return value


def _post(endpoint: Endpoint, payload: dict[str, Any]) -> tuple[int, bytes]:
    """The status and at most BODY_BYTES of the body (more: ValueError)."""
    headers = {"Accept": "application/json"}
    if endpoint.key:
        headers["Authorization"] = f"Bearer {endpoint.key}"
    url = endpoint.url.rstrip("/") + "/chat/completions"
    left = max(0.001, _deadline.get() - time.monotonic())
    with _client(endpoint.allow).stream(
        "POST", url, json=payload, headers=headers, timeout=left
    ) as response:
        if int(response.headers.get("Content-Length") or 0) > BODY_BYTES:
            raise ValueError("body too large")
        body = bytearray()
        for chunk in response.iter_bytes():
            body += chunk
            if len(body) > BODY_BYTES:
                raise ValueError("body too large")
        return response.status_code, bytes(body)


def _payload(endpoint: Endpoint, conversation: list[dict[str, str]], mode: str) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "model": endpoint.model,
        "messages": conversation,
        "temperature": 0,
        "max_tokens": MAX_TOKENS,
    }
    if _FORMATS[mode] is not None:
        payload["response_format"] = _FORMATS[mode]
    return payload


def _read(body: bytes) -> tuple[str, int, int]:
    data = loads(body.decode())
    content = data["choices"][0]["message"]["content"]
    if not isinstance(content, str):
        raise ValueError("no content")
    usage = data.get("usage") or {}
    return content, _count(usage.get("prompt_tokens", 0)), _count(usage.get("completion_tokens", 0))


def complete(
    endpoint: Endpoint, conversation: list[dict[str, str]], deadline: float = math.inf
) -> Reply:
    """POST /chat/completions, done by min(the endpoint's timeout, `deadline`), a
    monotonic time; raises `EndpointError` for a timeout ("deadline" when `deadline`
    was the sooner), an HTTP error or redirect, an address refused, or a body that is no
    chat completion. A response_format refused is asked again with the next one, and
    the endpoint remembers the one that worked."""
    started = time.monotonic()
    own = started + min(endpoint.timeout, CALL_SECONDS)
    token = _deadline.set(min(own, deadline))
    mode, requests = response_format(endpoint), 0

    def fail(reason: str, exc: BaseException | None = None) -> EndpointError:
        if reason == "timeout" and deadline < own:
            reason = "deadline"
        error = EndpointError(reason, time.monotonic() - started, str(exc or reason))
        error.requests = max(1, requests)
        return error

    try:
        while True:
            requests += 1
            status, body = _post(endpoint, _payload(endpoint, conversation, mode))
            if mode in _NEXT and _refuses_format(status, body):
                mode = _NEXT[mode]
                continue
            break
        if status == 200:
            _modes[(endpoint.url, endpoint.model)] = mode
        if status != 200:
            raise fail(f"http {status}")
        content, prompt, completion = _read(body)
    except _Refused as exc:
        raise fail("internal address", exc) from exc
    except (httpx.TimeoutException, httpcore.TimeoutException) as exc:
        raise fail("timeout", exc) from exc
    except (httpx.TransportError, httpcore.ConnectError, httpcore.NetworkError) as exc:
        if isinstance(exc, httpx.RemoteProtocolError | httpx.DecodingError):
            raise fail("bad response", exc) from exc
        raise fail("unreachable", exc) from exc
    except (httpcore.ProtocolError, ValueError, KeyError, IndexError, TypeError) as exc:
        raise fail("bad response", exc) from exc
    finally:
        _deadline.reset(token)
    return Reply(content, prompt, completion, time.monotonic() - started, requests)


_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.DOTALL)


def parse_ruling(content: str, passages: int) -> Ruling | None:
    """The answer as a ruling, or None when it is not the JSON asked for (a model may
    wrap it in a Markdown fence; anything else is refused)."""
    fenced = _FENCE.match(content)
    try:
        data: Any = loads(fenced.group(1) if fenced else content)
    except ValueError:
        return None
    if not isinstance(data, dict) or data.get("verdict") not in ("supported", "unsupported"):
        return None
    words = data.get("unsupported_words", [])
    passage = data.get("supporting_passage")
    if not isinstance(words, list) or len(words) > WORDS:
        return None
    if not all(isinstance(w, str) for w in words):
        return None
    if passage is not None and (
        isinstance(passage, bool) or not isinstance(passage, int) or not 0 <= passage < passages
    ):
        return None
    return Ruling(data["verdict"] == "supported", tuple(words), passage)
