"""SPEC §3's precedence: excluded domains, then context URLs, then preferred domains."""

from __future__ import annotations

import pytest

from grounding_app.policies.domains import parse_domain
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
