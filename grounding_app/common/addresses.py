"""Which addresses a request to a URL someone typed may reach (server-side request
forgery): shared by the alert webhooks (`monitoring/webhooks.py`) and the LLM judge's
client (`llm_judge/client.py`), each with its own allow-list setting.

An internal address (loopback, private, link-local, ...) is refused unless the caller's
allow-list names the host or a network holding it. An IPv6 address that carries an IPv4
one (mapped, 6to4 `2002::/16`, NAT64 `64:ff9b::/96`) reaches that IPv4 address through
a gateway, so it is judged as that address too: `64:ff9b::a00:1` is 10.0.0.1, internal,
though Python calls the IPv6 form global. A cloud metadata address is refused whatever
the list says, carried or not: it hands out the machine's credentials.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Sequence
from ipaddress import IPv4Address, IPv6Address, ip_address, ip_network
from typing import Any

IPAddress = IPv4Address | IPv6Address

# Link-local (AWS, GCP, Azure, OpenStack at 169.254.169.254, ECS at 169.254.170.2), AWS's
# IPv6 endpoint, Alibaba's and Oracle's.
METADATA = tuple(
    ip_network(n)
    for n in (
        "169.254.0.0/16",
        "fe80::/10",
        "fd00:ec2::254/128",
        "100.100.100.200/32",
        "192.0.0.192/32",
    )
)
_NAT64 = ip_network("64:ff9b::/96")
# NAT64 for local use (RFC 8215): a site's own translator, so never a public host.
_LOCAL_NAT64 = ip_network("64:ff9b:1::/48")


class RefusedAddress(ValueError):
    """An address that may not be reached; the message says why."""


def _carried(address: IPAddress) -> list[IPAddress]:
    """The address and any IPv4 address an IPv6 one carries."""
    found: list[IPAddress] = [address]
    if isinstance(address, IPv6Address):
        for inner in (address.ipv4_mapped, address.sixtofour):
            if inner is not None:
                found.append(inner)
        if address in _NAT64:
            found.append(IPv4Address(int(address) & 0xFFFFFFFF))
    return found


def is_metadata(address: IPAddress) -> bool:
    return any(a in net for a in _carried(address) for net in METADATA if a.version == net.version)


def _internal(address: IPAddress) -> bool:
    return not address.is_global or (isinstance(address, IPv6Address) and address in _LOCAL_NAT64)


def allowed(host: str, address: IPAddress, allow: Sequence[str]) -> bool:
    """Whether `allow` names the host, or a network holding the address."""
    for entry in allow:
        if entry.lower() == host.lower():
            return True
        try:
            if address in ip_network(entry, strict=False):
                return True
        except ValueError:  # a host name, not a network
            continue
    return False


def refuse(host: str, address: IPAddress, allow: Sequence[str], setting: str) -> None:
    """RefusedAddress for a metadata address, or an internal one `allow` does not name."""
    shown = host if host == str(address) else f"{host} ({address})"
    if is_metadata(address):
        raise RefusedAddress(
            f"{shown} is an internal address, a cloud's metadata service: never reached,"
            f" whatever {setting} says"
        )
    carried = _carried(address)
    internal = [a for a in carried if _internal(a)]
    if internal and not any(allowed(host, a, allow) for a in carried):
        inner = "" if internal[0] == address else f" (it carries {internal[0]})"
        raise RefusedAddress(
            f"{shown} is an internal address{inner}; an admin may allow it with {setting}"
        )


def vetted(
    host: str, port: int, allow: Sequence[str], setting: str, timeout: float | None = None
) -> list[str]:
    """The host's addresses to connect to, in the resolver's order; RefusedAddress when
    it does not resolve or any of them is refused (a name may resolve to a public and a
    private address). ``timeout``: seconds the lookup may take; TimeoutError past them."""
    try:
        found = _resolve(host, port, timeout)
    except socket.gaierror as exc:
        raise RefusedAddress(f"{host} does not resolve: {exc.strerror}") from exc
    addresses = [ip_address(str(info[4][0]).split("%")[0]) for info in found]
    for address in addresses:
        refuse(host, address, allow, setting)
    return list(dict.fromkeys(str(a) for a in addresses))


def _resolve(host: str, port: int, timeout: float | None) -> Sequence[tuple[Any, ...]]:
    """`socket.getaddrinfo`, given at most ``timeout`` seconds: a resolver that hangs
    would hold the worker past its call's deadline, and a lookup cannot be cancelled, so
    it runs in a thread of its own, left to end when the system resolver gives up."""
    if timeout is None:
        return socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    answer: list[Sequence[tuple[Any, ...]] | OSError] = []

    def look() -> None:
        try:
            answer.append(socket.getaddrinfo(host, port, type=socket.SOCK_STREAM))
        except OSError as exc:
            answer.append(exc)

    thread = threading.Thread(target=look, name=f"resolve {host}"[:60], daemon=True)
    thread.start()
    thread.join(max(0.0, timeout))
    if not answer:
        raise TimeoutError(f"{host} did not resolve within {timeout:.1f} s")
    if isinstance(answer[0], OSError):
        raise answer[0]
    return answer[0]
