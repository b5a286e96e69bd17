"""Domain matching of source policies, as tables: subdomains, IDNs, ports, userinfo,
invalid URLs (the rules are written down in `grounding_app/policies/domains.py`)."""

from __future__ import annotations

import pytest

from grounding_app.policies.domains import (
    DomainError,
    first_match,
    normalize_host,
    normalize_url,
    parse_context_url,
    parse_domain,
    url_host,
)

# (list entry, URL, covered?)
MATCHES = [
    # the domain itself and its subdomains, on whole labels only
    ("example.com", "https://example.com/", True),
    ("example.com", "https://www.example.com/page", True),
    ("example.com", "http://a.b.c.example.com/", True),
    ("example.com", "https://notexample.com/", False),
    ("example.com", "https://example.com.evil.net/", False),
    ("example.com", "https://example.co/", False),
    ("example.com", "https://example.comm/", False),
    ("example.com", "https://wwwexample.com/", False),
    ("example.com", "https://com/", False),
    ("www.example.com", "https://www.example.com/", True),
    ("www.example.com", "https://m.www.example.com/", True),
    ("www.example.com", "https://example.com/", False),
    ("www.example.com", "https://shop.example.com/", False),
    ("co.uk", "https://bbc.co.uk/", True),
    # case and trailing dots
    ("example.com", "https://WWW.EXAMPLE.COM/", True),
    ("EXAMPLE.COM", "https://www.example.com/", True),
    ("example.com.", "https://www.example.com/", True),
    ("example.com", "https://www.example.com./", True),
    # IDNs: Unicode and punycode are one name, whichever side uses which
    ("bücher.example", "https://xn--bcher-kva.example/", True),
    ("xn--bcher-kva.example", "https://bücher.example/", True),
    ("BÜCHER.example", "https://www.bücher.example/", True),
    ("bücher.example", "https://bucher.example/", False),
    ("münchen.de", "https://xn--mnchen-3ya.de/", True),
    ("пример.рф", "https://xn--e1afmkfd.xn--p1ai/", True),
    ("例え.jp", "https://www.例え.jp/", True),
    ("例え.jp", "https://例え.com/", False),
    # full-width dot and letters map to ASCII under UTS #46
    (
        "example.com",
        "https://\uff45\uff58\uff41\uff4d\uff50\uff4c\uff45\uff0e\uff43\uff4f\uff4d/",
        True,
    ),
    # ports never matter for domains
    ("example.com", "https://example.com:8443/", True),
    ("example.com", "http://www.example.com:80/", True),
    # userinfo is not the host
    ("example.com", "https://example.com@evil.com/", False),
    ("evil.com", "https://example.com@evil.com/", True),
    ("example.com", "https://user:pass@www.example.com/", True),
    ("example.com", "https://evil.com#@example.com", False),
    ("example.com", "https://evil.com?@example.com", False),
    ("example.com", "https://evil.com/@example.com", False),
    # percent-escapes in the host are decoded, as browsers do
    ("example.com", "https://ex%61mple.com/", True),
    ("example.com", "https://www%2eexample.com/", True),
    # backslashes and control characters make the host unknown: never a match
    ("example.com", "https://evil.com\\@example.com/", False),
    ("evil.com", "https://evil.com\\@example.com/", False),
    ("example.com", "https://exa\tmple.com/", False),
    ("example.com", "https://example.com\n/", False),
    ("example.com", " https://example.com/", False),
    # only absolute http(s) URLs have a host here
    ("example.com", "ftp://example.com/", False),
    ("example.com", "javascript://example.com/%0aalert(1)", False),
    ("example.com", "//example.com/", False),
    ("example.com", "example.com", False),
    ("example.com", "", False),
    ("example.com", "https://", False),
    ("example.com", "https://example.com:99999/", False),
    ("example.com", "https://example.com:port/", False),
    ("example.com", "https://[example.com]/", False),
    ("example.com", "https://exa mple.com/", False),
    ("example.com", "https://-example.com/", False),
    ("example.com", "https://example..com/", False),
    # IP literals match only themselves
    ("192.0.2.1", "http://192.0.2.1/", True),
    ("192.0.2.1", "http://192.0.2.1:8080/x", True),
    ("2.1", "http://192.0.2.1/", False),
    ("0.2.1", "http://192.0.2.1/", False),
    ("2001:db8::1", "http://[2001:db8::1]/", True),
    ("2001:db8::1", "http://[2001:DB8:0::1]:80/", True),
    ("2001:db8::1", "http://[2001:db8::2]/", False),
]


@pytest.mark.parametrize(("entry", "url", "expected"), MATCHES)
def test_entry_covers_url(entry: str, url: str, expected: bool) -> None:
    normalized = parse_domain(entry)
    assert (first_match([normalized], url_host(url)) is not None) is expected


# (host, normalized)
HOSTS = [
    ("Example.COM", "example.com"),
    ("example.com.", "example.com"),
    ("bücher.example", "xn--bcher-kva.example"),
    ("XN--BCHER-KVA.example", "xn--bcher-kva.example"),
    ("Straße.de", "xn--strae-oqa.de"),  # IDNA 2008: ß is kept, not mapped to ss
    ("192.0.2.1", "192.0.2.1"),
    ("[2001:DB8::1]", "2001:db8::1"),
    ("", None),
    (".", None),
    ("example..com", None),
    ("-example.com", None),
    ("example-.com", None),
    ("exa_mple.com", None),
    ("a" * 64 + ".com", None),
    (".".join(["a" * 60] * 5), None),
    ("xn--zz.example", None),  # punycode that decodes to nothing valid
]


@pytest.mark.parametrize(("host", "expected"), HOSTS)
def test_normalize_host(host: str, expected: str | None) -> None:
    assert normalize_host(host) == expected


# (entry, error message part) for entries refused when a policy is saved
REFUSED = [
    ("", "empty"),
    ("   ", "empty"),
    ("https://example.com", "URL"),
    ("example.com/path", "URL"),
    ("*.example.com", "wildcard"),
    ("user@example.com", "port"),
    ("example.com:443", "port"),
    ("com", "dot"),
    ("localhost", "dot"),
    ("exa mple.com", "not a valid"),
    ("example..com", "not a valid"),
    ("-bad.example", "not a valid"),
]


@pytest.mark.parametrize(("entry", "message"), REFUSED)
def test_entries_that_are_not_bare_domains_are_refused(entry: str, message: str) -> None:
    with pytest.raises(DomainError, match=message):
        parse_domain(entry)


@pytest.mark.parametrize(
    ("entry", "normalized"),
    [
        (" Example.com ", "example.com"),
        ("www.EXAMPLE.com.", "www.example.com"),
        ("Bücher.example", "xn--bcher-kva.example"),
        ("192.0.2.1", "192.0.2.1"),
        ("2001:db8::1", "2001:db8::1"),
    ],
)
def test_entries_are_stored_normalized(entry: str, normalized: str) -> None:
    assert parse_domain(entry) == normalized


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("https://example.com", "https://EXAMPLE.com/", True),
        ("https://example.com:443/a", "https://example.com/a", True),
        ("http://example.com:80/a", "http://example.com/a", True),
        ("https://example.com/a#intro", "https://example.com/a", True),
        ("https://bücher.example/a", "https://xn--bcher-kva.example/a", True),
        ("https://example.com/a?x=1", "https://example.com/a?x=1", True),
        ("https://example.com/a?x=1", "https://example.com/a?x=2", False),
        ("https://example.com/a", "https://example.com/a/", False),
        ("https://example.com/A", "https://example.com/a", False),
        ("http://example.com/a", "https://example.com/a", False),
        ("https://example.com:8443/a", "https://example.com/a", False),
        ("https://www.example.com/a", "https://example.com/a", False),
        ("https://user@example.com/a", "https://example.com/a", True),
    ],
)
def test_context_urls_compare_in_one_spelling(a: str, b: str, same: bool) -> None:
    assert (normalize_url(a) == normalize_url(b)) is same


@pytest.mark.parametrize(
    "url", ["", "example.com/a", "ftp://example.com/", "https://evil.com\\@x.com/", "//x.com/"]
)
def test_context_urls_must_be_http_urls(url: str) -> None:
    with pytest.raises(DomainError):
        parse_context_url(url)
    assert normalize_url(url) is None


def test_covers_needs_both_sides_normalized_and_never_matches_a_suffix_of_a_label() -> None:
    assert first_match(["example.com"], "a.example.com") == "example.com"
    assert first_match(["example.com"], "aexample.com") is None
    assert first_match(["192.0.2.1"], "1.192.0.2.1") is None
    assert first_match(["example.com"], None) is None
