"""The link policy: only absolute http(s) URLs become hrefs."""

from __future__ import annotations

import pytest

from grounding_app.rendering.links import LINK_REL, link_html, safe_href

ALLOWED = [
    "http://example.com",
    "https://example.com/path?q=1&r=2#frag",
    "HTTPS://EXAMPLE.COM/",
    "https://xn--bcher-kva.example/",
    "https://bücher.example/straße",
    "https://user@example.com:8443/x",
    "https://[2001:db8::1]/",
]

REFUSED = [
    "",
    "javascript:alert(1)",
    "JaVaScRiPt:alert(1)",
    "java\tscript:alert(1)",
    "java\nscript:alert(1)",
    "java\rscript:alert(1)",
    " javascript:alert(1)",
    "\x00javascript:alert(1)",
    "\x01https://example.com",
    "javascript://example.com/%0aalert(1)",
    "data:text/html,<script>alert(1)</script>",
    "DATA:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
    "vbscript:msgbox(1)",
    "file:///etc/passwd",
    "ftp://example.com/",
    "mailto:someone@example.com",
    "/relative/path",
    "relative/path",
    "?q=1",
    "#fragment",
    "//evil.example/",
    "\\\\evil.example\\share",
    "https:\\\\evil.example",
    "http:/evil.example",
    "http:evil.example",
    "https://",
    "https:///path",
    "https://exa mple.com/",
    "https://example.com/\u0085",
    "https://[::1",
    "ht\ttps://example.com",
    "https://example.com\n",
]


@pytest.mark.parametrize("uri", ALLOWED)
def test_http_and_https_are_links(uri: str) -> None:
    assert safe_href(uri) == uri


@pytest.mark.parametrize("uri", REFUSED)
def test_everything_else_is_refused(uri: str) -> None:
    assert safe_href(uri) is None


def test_link_html_escapes_and_marks_external_links() -> None:
    html = link_html('https://example.com/?a=1&b="2"', "<b>Title</b>")
    assert html == (
        '<a href="https://example.com/?a=1&amp;b=&quot;2&quot;" '
        f'rel="{LINK_REL}" target="_blank">&lt;b&gt;Title&lt;/b&gt;</a>'
    )


def test_link_html_shows_a_refused_uri_as_text() -> None:
    html = link_html("javascript:alert(1)", "<i>x</i>")
    assert "<a" not in html and "href" not in html
    assert "&lt;i&gt;x&lt;/i&gt; (javascript:alert(1))" in html
