"""The one link policy: only absolute http(s) URLs become hrefs; everything else is text.

URIs come from imported payloads and fact attributes, so they are untrusted. Browsers
strip tabs, newlines and leading control characters before reading a scheme
(`java\\tscript:` runs), so any such character rejects the URI outright instead of
being cleaned away; a backslash is rejected too, since browsers read it as a slash.
"""

from __future__ import annotations

import html
import re
from urllib.parse import urlsplit

LINK_REL = "noopener noreferrer nofollow"

_ALLOWED_SCHEMES = frozenset({"http", "https"})
_UNSAFE_CHARS = re.compile(r"[\x00-\x20\x7f-\x9f\\]")


def safe_href(uri: str) -> str | None:
    """`uri` unchanged when it is an absolute http(s) URL with a host, else None."""
    if not uri or _UNSAFE_CHARS.search(uri):
        return None
    scheme, sep, _ = uri.partition("://")
    if not sep or scheme.lower() not in _ALLOWED_SCHEMES:
        return None
    try:
        host = urlsplit(uri).hostname
    except ValueError:  # e.g. an unbalanced "[" in the host
        return None
    return uri if host else None


def link_html(uri: str, label: str) -> str:
    """An escaped external link, or the label and URI as escaped text when not allowed."""
    href = safe_href(uri)
    if href is None:
        text = f"{label} ({uri})" if uri and label and uri != label else (label or uri)
        return f'<span class="link-refused">{html.escape(text)}</span>'
    return (
        f'<a href="{html.escape(href)}" rel="{LINK_REL}" target="_blank">'
        f"{html.escape(label or uri)}</a>"
    )
