"""Template filters of the review pages."""

from __future__ import annotations

from django import template
from django.utils.safestring import SafeString, mark_safe

from grounding_app.reviews.inline import claim_html, claim_text

register = template.Library()


@register.filter
def as_rendered(text: str) -> SafeString:
    """A claim's text as the rendered answer shows it (escaped by `claim_html`)."""
    return mark_safe(claim_html(text))


# An excerpt needs only the answer's start, and an imported answer may be megabytes long.
EXCERPT_SOURCE_CHARS = 600


@register.filter
def excerpt(text: str) -> str:
    """The start of an answer with its Markdown syntax dropped; the template escapes it."""
    return claim_text(text[:EXCERPT_SOURCE_CHARS])
