"""Which domain a cited URL belongs to, and whether a policy's domain list covers it.

Pure Python, no Django: the policy pages, the review page and the labeling page all ask
the same questions here, and the table tests in `tests/policies/test_domains.py` pin
every rule down. SPEC §3 names the lists (excluded, preferred) but not how a domain
matches, so these are our rules:

- A list entry is a bare domain name ("example.com"), never a URL, a port, a path or a
  wildcard: anything else is refused when the policy is saved (`parse_domain`), so a
  list never means something other than what it looks like.
- An entry covers that host and every subdomain of it, on whole labels only:
  "example.com" covers "example.com", "www.example.com" and "a.b.example.com"; it never
  covers "notexample.com", "example.com.evil.net" or "example.co". "www.example.com"
  covers itself and its subdomains, not "example.com" (the way Google's `site:` and a
  cookie's Domain read a domain).
- Names compare in their IDNA ASCII form (UTS #46 mapping, so case, full-width dots and
  Unicode case folding do not matter): "Bücher.example", "BÜCHER.EXAMPLE." and
  "xn--bcher-kva.example" are one domain. One trailing dot is dropped.
- IP literals ("192.0.2.1", "[2001:db8::1]") match only themselves, never as a suffix.
- A URL's host is what a browser would connect to: userinfo is not the host
  ("https://example.com@evil.com" is evil.com), the port does not matter, percent-escapes
  in the host are decoded first. Only absolute http(s) URLs have a host here; a URL with
  a backslash, whitespace or a control character has none, since browsers and Python's
  parser disagree about where its host ends. A URL without a host matches nothing, and
  the page says its domain is unknown rather than calling it allowed.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable
from urllib.parse import unquote, urlsplit

import idna

MAX_DOMAIN_CHARS = 253

_UNSAFE_URL_CHARS = re.compile(r"[\x00-\x20\x7f-\x9f\\]")
_LABEL = re.compile(r"^(?!-)[a-z0-9-]{1,63}(?<!-)$")
_DEFAULT_PORTS = {"http": 80, "https": 443}


class DomainError(ValueError):
    """A list entry that is not a bare domain name; the message says why, for people."""


def _ip(host: str) -> str | None:
    """The canonical text of an IP literal (brackets allowed for IPv6), else None."""
    bare = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    try:
        return str(ipaddress.ip_address(bare))
    except ValueError:
        return None


def normalize_host(host: str) -> str | None:
    """`host` as lowercase IDNA ASCII without a trailing dot, or None if it is no hostname."""
    host = host.strip()
    if host.endswith("."):
        host = host[:-1]
    if not host:
        return None
    ip = _ip(host)
    if ip is not None:
        return ip
    try:
        ascii_host = idna.encode(host, uts46=True, transitional=False).decode("ascii")
    except (idna.IDNAError, UnicodeError):
        return None
    ascii_host = ascii_host.lower()
    if len(ascii_host) > MAX_DOMAIN_CHARS:
        return None
    if not all(_LABEL.match(label) for label in ascii_host.split(".")):
        return None
    return ascii_host


def parse_domain(entry: str) -> str:
    """A policy list entry, normalized; raises DomainError when it is not a bare domain."""
    text = entry.strip()
    if not text:
        raise DomainError("is empty.")
    if "://" in text or "/" in text:
        raise DomainError("is a URL; give the domain alone, e.g. example.com.")
    if "*" in text:
        raise DomainError("has a wildcard; example.com already covers its subdomains.")
    if "@" in text or (":" in text and _ip(text) is None):
        raise DomainError("has a user name or a port; give the domain alone.")
    host = normalize_host(text)
    if host is None:
        raise DomainError("is not a valid domain name.")
    if _ip(host) is None and "." not in host:
        raise DomainError("needs a dot: a top-level domain alone would cover far too much.")
    return host


def url_host(url: str) -> str | None:
    """The normalized host of an absolute http(s) URL, or None where there is none."""
    if not url or _UNSAFE_URL_CHARS.search(url):
        return None
    try:
        parts = urlsplit(url)
        hostname = parts.hostname
        parts.port  # noqa: B018  (raises on a port that is not a number)
    except ValueError:
        return None
    if parts.scheme.lower() not in _DEFAULT_PORTS or not hostname:
        return None
    return normalize_host(unquote(hostname))


class DomainList:
    """A list of normalized entries indexed once, so that finding the entry that covers
    a host costs a lookup per label of the host, whatever the list's length (a scan
    called `ipaddress` twice per entry: 2,000 entries x 3,000 sources took 38 s).

    Both sides normalized: an IP literal, host or entry, matches only itself; a name
    matches itself and its subdomains, on whole labels; the entry earliest in the list
    wins.
    """

    def __init__(self, entries: Iterable[str]) -> None:
        self.entries = tuple(entries)
        self._exact: dict[str, int] = {}  # every entry -> its first position
        self._names: dict[str, int] = {}  # entries that are names, not IP literals
        for position, entry in enumerate(self.entries):
            if entry not in self._exact:
                self._exact[entry] = position
                if _ip(entry) is None:
                    self._names[entry] = position

    def first(self, host: str | None) -> str | None:
        """The first entry covering `host`, or None (always None for an unknown host)."""
        if host is None:
            return None
        if _ip(host) is not None:
            position = self._exact.get(host)
            return None if position is None else self.entries[position]
        labels = host.split(".")
        positions = [
            position
            for i in range(len(labels))
            if (position := self._names.get(".".join(labels[i:]))) is not None
        ]
        return self.entries[min(positions)] if positions else None


def first_match(entries: Iterable[str], host: str | None) -> str | None:
    """The first entry covering `host`, or None (always None for an unknown host); to
    ask one list about many hosts, build a `DomainList` once."""
    return DomainList(entries).first(host)


def normalize_url(url: str) -> str | None:
    """A URL in one spelling for comparing context URLs with cited ones, or None.

    Scheme and host as `url_host` gives them, the default port dropped, an empty path
    read as "/", the query kept, the fragment dropped; the path itself stays exact.
    """
    host = url_host(url)
    if host is None:
        return None
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    port = parts.port
    netloc = f"[{host}]" if ":" in host else host
    if port is not None and port != _DEFAULT_PORTS[scheme]:
        netloc = f"{netloc}:{port}"
    query = f"?{parts.query}" if parts.query else ""
    return f"{scheme}://{netloc}{parts.path or '/'}{query}"


def parse_context_url(entry: str) -> str:
    """A context URL as entered, checked; raises DomainError unless it is an http(s) URL."""
    text = entry.strip()
    if normalize_url(text) is None:
        raise DomainError("is not an absolute http(s) URL with a valid host.")
    return text
