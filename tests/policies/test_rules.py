"""SPEC §3's precedence: excluded domains, then context URLs, then preferred domains."""

from __future__ import annotations

import time

import pytest

from grounding_app.policies.domains import first_match, parse_domain
from grounding_app.policies.models import SourcePolicy
from grounding_app.policies.rules import Rules, SourceRef, context_uses, judge, source_domain

REDIRECT = "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AUZIYQE8"
RULES = Rules(
    excluded=tuple(parse_domain(d) for d in ("spam.example", "bad.news.example")),
    preferred=tuple(parse_domain(d) for d in ("news.example", "spam.example", "wiki.example")),
    context_urls=(
        "https://docs.example/guide",
        "https://spam.example/also-context",
        "https://wiki.example/Page",
    ),
)


@pytest.mark.parametrize(
    ("source", "status", "matched"),
    [
        # excluded wins over preferred, and over a context URL
        (SourceRef("", "https://www.spam.example/x"), "excluded", "spam.example"),
        (SourceRef("", "https://spam.example/also-context"), "excluded", "spam.example"),
        (SourceRef("", "https://bad.news.example/"), "excluded", "bad.news.example"),
        # a context URL wins over preferred
        (SourceRef("", "https://wiki.example/Page#top"), "context", "https://wiki.example/Page"),
        (SourceRef("", "https://docs.example/guide"), "context", "https://docs.example/guide"),
        (SourceRef("", "https://wiki.example/Other"), "preferred", "wiki.example"),
        (SourceRef("", "https://good.news.example/"), "preferred", "news.example"),
        (SourceRef("", "https://docs.example/other"), "other", ""),
        (SourceRef("", "https://notspam.example/"), "other", ""),
        # no readable domain: never called allowed
        (SourceRef("Some title", "gs://bucket/doc.pdf"), "unknown", ""),
        (SourceRef("", ""), "unknown", ""),
        # Gemini web chunks: the domain field, else the title, never the redirect's host
        (SourceRef("spam.example", REDIRECT, "spam.example"), "excluded", "spam.example"),
        (SourceRef("www.spam.example", REDIRECT), "excluded", "spam.example"),
        (SourceRef("Not a domain", REDIRECT), "unknown", ""),
        (SourceRef("wiki.example", REDIRECT, "WIKI.example."), "preferred", "wiki.example"),
    ],
)
def test_precedence(source: SourceRef, status: str, matched: str) -> None:
    verdict = judge(RULES, source)
    assert (verdict.status, verdict.matched) == (status, matched)


def test_redirect_host_is_never_the_source_domain() -> None:
    assert source_domain(SourceRef("", REDIRECT)) is None
    assert source_domain(SourceRef("uefa.com", REDIRECT)) == "uefa.com"


def test_context_urls_cited_uncited_and_unusable() -> None:
    sources = [
        SourceRef("", "https://WIKI.example:443/Page"),
        SourceRef("", "https://docs.example/guide", cited=False),
    ]
    uses = {u.url: (u.cited, u.excluded_by) for u in context_uses(RULES, sources)}
    assert uses == {
        "https://docs.example/guide": (False, ""),  # listed as a source, but never cited
        "https://spam.example/also-context": (False, "spam.example"),
        "https://wiki.example/Page": (True, ""),
    }


# --- a policy is indexed once (issue 25 item 14) ---------------------------------------


def _big_rules() -> Rules:
    """SPEC §3's largest lists: 2,000 excluded domains (some IP literals), 20 preferred
    domains, 20 context URLs."""
    excluded = [parse_domain(f"site{i}.example") for i in range(1990)]
    excluded += [parse_domain(f"192.0.2.{i}") for i in range(10)]
    preferred = [parse_domain(f"good{i}.example") for i in range(20)]
    context = [f"https://docs.example/page/{i}" for i in range(20)]
    return Rules(tuple(excluded), tuple(preferred), tuple(context))


def _sources(count: int) -> list[SourceRef]:
    hosts = ("www.site1500.example", "good7.example", "docs.example", "other.example")
    return [SourceRef("", f"https://{hosts[i % 4]}/page/{i // 4 % 30}") for i in range(count)]


def test_a_large_policy_judges_many_sources_fast() -> None:
    """2,000 excluded domains x 3,000 sources took 37.8 s (each source tried every entry,
    8 M ipaddress calls); an index makes it a few lookups per source."""
    rules, sources = _big_rules(), _sources(3000)
    start = time.process_time()
    verdicts = [judge(rules, source) for source in sources]
    uses = context_uses(rules, sources)
    elapsed = time.process_time() - start
    assert elapsed < 3.0, elapsed
    statuses = {(v.status, v.matched) for v in verdicts}
    assert ("excluded", "site1500.example") in statuses
    assert ("preferred", "good7.example") in statuses
    assert ("context", "https://docs.example/page/3") in statuses
    assert ("other", "") in statuses
    assert sum(use.cited for use in uses) == 20


@pytest.mark.parametrize(
    ("entries", "host", "expected"),
    [
        (("b.example", "a.b.example"), "x.a.b.example", "b.example"),  # the list's order
        (("a.b.example", "b.example"), "x.a.b.example", "a.b.example"),
        (("2.3.4", "192.0.2.1"), "1.2.3.4", None),  # an IP matches only itself
        (("2.3.4",), "a.1.2.3.4", "2.3.4"),  # a name made of digits is a name
        (("1.2.3.4",), "a.1.2.3.4", None),  # an IP entry never as a suffix
        (("2001:db8::1",), "2001:db8::1", "2001:db8::1"),
        (("example.com",), "notexample.com", None),
        (("example.com",), "example.com", "example.com"),
        ((), "example.com", None),
        (("example.com",), None, None),
    ],
)
def test_the_index_matches_as_the_list_reads(
    entries: tuple[str, ...], host: str | None, expected: str | None
) -> None:
    assert first_match(entries, host) == expected
    rules = Rules(entries, (), ())
    verdict = judge(rules, SourceRef("", "", host or ""))
    assert verdict.matched == (expected or "")


def test_a_policy_read_again_keeps_its_index() -> None:
    """Every batch line reads its job's policy afresh: the lists are indexed once."""

    def policy() -> SourcePolicy:
        return SourcePolicy(excluded_domains=["spam.example"], context_urls=["https://a.example/"])

    first, again = policy().rules, policy().rules
    assert first.excluded_list is again.excluded_list
    assert first.context_by_url is again.context_by_url
    changed = SourcePolicy(excluded_domains=["other.example"]).rules
    assert changed.excluded_list.first("www.other.example") == "other.example"
