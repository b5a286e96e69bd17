"""A policy's lists applied to cited sources, with SPEC §3's precedence (no Django).

Excluded domains win over everything (a context URL on an excluded domain is not used),
then context URLs, then preferred domains. Each source gets one status:

- `excluded`: its domain is covered by an excluded entry (a flag on every citation);
- `context`: its URL is one of the policy's context URLs (same URL as `normalize_url`
  spells it);
- `preferred`: its domain is covered by a preferred entry;
- `unknown`: it has no domain we can read (no http(s) URL, no `domain` field), so the
  policy cannot say anything about it; never shown as allowed;
- `other`: none of these.

A source's domain is its format's own `domain` field where there is one (Gemini web
chunks), else the host of its URI. Gemini's URIs point at Google's grounding redirect,
whose host says nothing about the source: for those, the title stands in when it is a
domain name (Gemini titles web chunks with their domain).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Literal

from grounding_app.policies.domains import (
    DomainError,
    DomainList,
    normalize_host,
    normalize_url,
    parse_domain,
    url_host,
)

Status = Literal["excluded", "context", "preferred", "unknown", "other"]

REDIRECT_HOSTS = frozenset({"vertexaisearch.cloud.google.com"})


@dataclass(frozen=True)
class Rules:
    """A policy's lists, indexed on first use: a batch job judges thousands of sources
    against one policy, so every list is read once, not once per source."""

    excluded: tuple[str, ...]  # normalized domains (see domains.parse_domain)
    preferred: tuple[str, ...]
    context_urls: tuple[str, ...]  # as entered; compared through normalize_url

    @cached_property
    def excluded_list(self) -> DomainList:
        return DomainList(self.excluded)

    @cached_property
    def preferred_list(self) -> DomainList:
        return DomainList(self.preferred)

    @cached_property
    def context_by_url(self) -> dict[str, str]:
        """Each context URL's normalized spelling -> the first entry spelled that way."""
        out: dict[str, str] = {}
        for context in self.context_urls:
            url = normalize_url(context)
            if url is not None:
                out.setdefault(url, context)
        return out


@lru_cache(maxsize=32)
def indexed(
    excluded: tuple[str, ...], preferred: tuple[str, ...], context: tuple[str, ...]
) -> Rules:
    """The one `Rules` for these lists in this process, so its index is built once
    however often the policy is read (every line of a batch job reads it)."""
    return Rules(excluded, preferred, context)


@dataclass(frozen=True)
class SourceRef:
    """What the rules need to know about one source."""

    title: str
    uri: str
    domain: str = ""
    cited: bool = True


@dataclass(frozen=True)
class Verdict:
    status: Status
    domain: str | None  # normalized, or None where unknown
    matched: str  # the list entry or context URL that decided, "" for unknown/other


@dataclass(frozen=True)
class ContextUse:
    url: str
    cited: bool
    excluded_by: str  # the excluded entry covering it ("" when it is usable)


def source_domain(source: SourceRef) -> str | None:
    """The normalized domain a source comes from, or None when it cannot be told."""
    if source.domain:
        return normalize_host(source.domain)
    host = url_host(source.uri)
    if host is not None and host not in REDIRECT_HOSTS:
        return host
    if host in REDIRECT_HOSTS and source.title:
        try:
            return parse_domain(source.title)
        except DomainError:
            return None
    return None


def judge(rules: Rules, source: SourceRef) -> Verdict:
    domain = source_domain(source)
    excluded = rules.excluded_list.first(domain)
    if excluded is not None:
        return Verdict("excluded", domain, excluded)
    url = normalize_url(source.uri)
    context = rules.context_by_url.get(url) if url is not None else None
    if context is not None:
        return Verdict("context", domain, context)
    preferred = rules.preferred_list.first(domain)
    if preferred is not None:
        return Verdict("preferred", domain, preferred)
    return Verdict("unknown" if domain is None else "other", domain, "")


def context_uses(rules: Rules, sources: Sequence[SourceRef]) -> tuple[ContextUse, ...]:
    """Each context URL: whether a cited source is that URL, and whether it is excluded."""
    cited = {url for s in sources if s.cited and (url := normalize_url(s.uri)) is not None}
    uses = []
    for context in rules.context_urls:
        excluded = rules.excluded_list.first(url_host(context))
        uses.append(ContextUse(context, normalize_url(context) in cited, excluded or ""))
    return tuple(uses)
