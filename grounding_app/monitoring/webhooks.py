"""Posting a webhook to a URL a user typed: only http(s), no credentials in it, no
redirect followed, a timeout, and never to an internal address unless the admin's
MONITORING_WEBHOOK_ALLOW names it (the check is `common/addresses.py`, shared with the
LLM judge; a cloud metadata address is never reached).

An alert rule's URL is user input, and the worker that posts it sits beside the
database, the broker and the cloud's metadata service: a rule must not make it reach
them (server-side request forgery). The host's addresses are resolved once and checked
(every one: a name may resolve to a public and a private address), and the connection
goes to the checked address itself, so a name that resolves elsewhere a moment later
(DNS rebinding) reaches nothing new. HTTPS still verifies the certificate for the name.

The timeout is one deadline for the whole attempt (connecting, sending, and reading the
answer), not a bound on each read: a receiver that trickles its headers a byte at a
time would otherwise hold a web worker (Send a test) or a Celery process for good.
"""

from __future__ import annotations

import http.client
import io
import socket
import ssl
import time
from ipaddress import ip_address
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings

from grounding_app.common.addresses import IPAddress, RefusedAddress, refuse, vetted

_SETTING = "MONITORING_WEBHOOK_ALLOW"


class BadWebhook(ValueError):
    """A webhook URL that may not be posted to; the message says why."""


def _refuse_internal(host: str, address: IPAddress) -> None:
    try:
        refuse(host, address, settings.MONITORING_WEBHOOK_ALLOW, _SETTING)
    except RefusedAddress as exc:
        raise BadWebhook(str(exc)) from exc


def check_url(url: str) -> str:
    """The URL, if it may be saved: http(s), a host, no credentials, and no internal
    address written as such (a name is resolved when posting, not here)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise BadWebhook("a webhook URL starts with http:// or https:// and names a host")
    if parts.username or parts.password:
        raise BadWebhook("a webhook URL carries no user name or password")
    try:
        literal = ip_address(parts.hostname)
    except ValueError:
        return url
    _refuse_internal(parts.hostname, literal)
    return url


def vetted_addresses(host: str, port: int, timeout: float | None = None) -> list[str]:
    """The addresses to connect to, in the resolver's order; BadWebhook when any of the
    host's is internal, TimeoutError when the lookup takes over `timeout` seconds."""
    try:
        return vetted(host, port, settings.MONITORING_WEBHOOK_ALLOW, _SETTING, timeout)
    except RefusedAddress as exc:
        raise BadWebhook(str(exc)) from exc


def _left(deadline: float) -> float:
    """Seconds until the deadline; TimeoutError once it has passed."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError("the webhook did not answer within MONITORING_WEBHOOK_TIMEOUT")
    return left


def _connect(addresses: list[str], port: int, deadline: float) -> socket.socket:
    """A socket to the first of the checked addresses that answers (a name may resolve
    to an IPv6 and an IPv4 address, and the service listen on one of them)."""
    failure: OSError = OSError(f"no address to connect to on port {port}")
    for address in addresses:
        try:
            return socket.create_connection((address, port), _left(deadline))
        except OSError as exc:
            failure = exc
    raise failure


class _Reader(io.RawIOBase):
    """A socket's bytes, each read given only the time left until the deadline."""

    def __init__(self, sock: socket.socket, deadline: float) -> None:
        self.sock, self.deadline = sock, deadline

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        self.sock.settimeout(_left(self.deadline))
        return self.sock.recv_into(buffer)


class _Deadlined:
    """The socket http.client sees: sending and every read end by the deadline."""

    def __init__(self, sock: socket.socket, deadline: float) -> None:
        self.sock, self.deadline = sock, deadline

    def sendall(self, data: Any) -> None:
        self.sock.settimeout(_left(self.deadline))  # sendall's timeout is its whole send
        self.sock.sendall(data)

    def makefile(self, mode: str) -> io.BufferedReader:
        return io.BufferedReader(_Reader(self.sock, self.deadline))

    def close(self) -> None:
        self.sock.close()


class _HTTP(http.client.HTTPConnection):
    """A connection to checked addresses, speaking to the URL's host (its Host header)."""

    def __init__(self, host: str, addresses: list[str], port: int, deadline: float) -> None:
        super().__init__(host, port)
        self.addresses, self.deadline = addresses, deadline

    def connect(self) -> None:
        raw = _connect(self.addresses, self.port, self.deadline)
        self.sock = _Deadlined(raw, self.deadline)


class _HTTPS(http.client.HTTPSConnection):
    """As `_HTTP`, with TLS verified for the URL's host name."""

    def __init__(self, host: str, addresses: list[str], port: int, deadline: float) -> None:
        self.tls = ssl.create_default_context()
        super().__init__(host, port, context=self.tls)
        self.addresses, self.deadline = addresses, deadline

    def connect(self) -> None:
        raw = _connect(self.addresses, self.port, self.deadline)
        raw.settimeout(_left(self.deadline))  # the TLS handshake
        tls = self.tls.wrap_socket(raw, server_hostname=self.host)
        self.sock = _Deadlined(tls, self.deadline)


def post(url: str, data: bytes, headers: dict[str, str], timeout: float) -> int:
    """POST once, all of it within `timeout` seconds; the status (a redirect is
    returned, never followed)."""
    deadline = time.monotonic() + timeout
    parts = urlsplit(check_url(url))
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    kind = _HTTPS if parts.scheme == "https" else _HTTP
    addresses = vetted_addresses(host, port, _left(deadline))
    connection = kind(host, addresses, port, deadline)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    try:
        connection.request("POST", path, body=data, headers=headers)
        response = connection.getresponse()
        response.read(64 * 1024)
        return response.status
    finally:
        connection.close()
