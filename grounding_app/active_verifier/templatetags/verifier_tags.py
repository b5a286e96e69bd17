"""`{% judged_by value %}`: a stored verifier id ("name@sha256:<12 hex>") as the pages
show it, "Judged by NAME (sha256:…)", or nothing for a verdict no verifier gave."""

from __future__ import annotations

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString

register = template.Library()


@register.simple_tag
def judged_by(verifier: str | None) -> SafeString | str:
    if not verifier:
        return ""
    name, _, digest = verifier.partition("@")
    return format_html(
        '<span class="judged-by" data-verifier="{}">Judged by <bdi>{}</bdi>'
        ' <code class="verifier-hash">({})</code></span>',
        verifier,
        name,
        digest or "no hash",
    )
