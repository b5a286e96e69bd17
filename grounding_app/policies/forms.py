"""Forms of the policy pages: a policy's settings, and attaching one to a review or project.

The three lists are edited as text, one entry per line. Spaces separate entries too, and
so do commas between domains, but never inside a URL, where a comma is legal. Entries
are stored normalized (domains in their IDNA ASCII form, see `domains`), duplicates
dropped in order. A bad entry refuses the list, naming its line.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from django import forms

from grounding_app.common.numbers import plain_number
from grounding_app.policies.domains import DomainError, parse_context_url, parse_domain
from grounding_app.policies.models import (
    MAX_CONTEXT_URLS,
    MAX_EXCLUDED,
    MAX_PREFERRED,
    SourcePolicy,
)

MAX_PROMPT_CHARS = 10_000
MAX_ERRORS_SHOWN = 10
# 2,000 domains of up to 253 characters, one per line.
MAX_LIST_CHARS = MAX_EXCLUDED * 254

DOMAIN_SEPARATORS = re.compile(r"[\s,]+")
URL_SEPARATORS = re.compile(r"\s+")


def parse_list(
    text: str,
    parse: Callable[[str], str],
    limit: int,
    what: str,
    separators: re.Pattern[str] = DOMAIN_SEPARATORS,
) -> list[str]:
    """Entries of a list field, normalized and without duplicates; raises ValidationError."""
    entries: list[str] = []
    errors: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        for word in separators.split(line.strip()):
            if not word:
                continue
            try:
                value = parse(word)
            except DomainError as exc:
                errors.append(f"Line {number}: “{word[:80]}” {exc}")
                continue
            if value not in entries:
                entries.append(value)
    if errors:
        shown = errors[:MAX_ERRORS_SHOWN]
        if len(errors) > len(shown):
            shown.append(f"… and {len(errors) - len(shown)} more.")
        raise forms.ValidationError(shown)
    if len(entries) > limit:
        raise forms.ValidationError(f"{len(entries):,} {what}: at most {limit:,} are allowed.")
    return entries


def _list_field(label: str, help_text: str, max_length: int) -> forms.CharField:
    return forms.CharField(
        label=label,
        required=False,
        max_length=max_length,
        help_text=help_text,
        widget=forms.Textarea(attrs={"rows": 5, "spellcheck": "false", "dir": "ltr"}),
    )


def _text_field(label: str, rows: int, help_text: str = "") -> forms.CharField:
    return forms.CharField(
        label=label,
        required=False,
        max_length=MAX_PROMPT_CHARS,
        help_text=help_text,
        widget=forms.Textarea(attrs={"rows": rows}),
    )


class PolicyForm(forms.ModelForm):
    description = _text_field("Description", 2)
    text_prompt = _text_field(
        "Text prompt", 3, "promptConfig.textPrompt: how the agent should use search results."
    )
    voice_prompt = _text_field("Voice prompt", 3, "promptConfig.voicePrompt: the same for voice.")
    excluded = _list_field(
        "Excluded domains",
        f"One per line, at most {MAX_EXCLUDED:,}. A domain covers its subdomains: "
        "example.com also excludes www.example.com, never notexample.com. "
        "Excluded domains win over everything else.",
        MAX_LIST_CHARS,
    )
    context = _list_field(
        "Context URLs",
        f"One http(s) URL per line, at most {MAX_CONTEXT_URLS}. "
        "A context URL on an excluded domain is not used.",
        MAX_CONTEXT_URLS * 2100,
    )
    preferred = _list_field(
        "Preferred domains",
        f"One per line, at most {MAX_PREFERRED}. Covers subdomains too.",
        MAX_PREFERRED * 254,
    )

    class Meta:
        model = SourcePolicy
        fields = ("name", "description", "text_prompt", "voice_prompt")

    field_order = (
        "name",
        "description",
        "excluded",
        "context",
        "preferred",
        "text_prompt",
        "voice_prompt",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.instance.pk is not None and not self.is_bound:
            self.initial["excluded"] = "\n".join(self.instance.excluded_domains)
            self.initial["context"] = "\n".join(self.instance.context_urls)
            self.initial["preferred"] = "\n".join(self.instance.preferred_domains)

    def clean_excluded(self) -> list[str]:
        return parse_list(self.cleaned_data["excluded"], parse_domain, MAX_EXCLUDED, "domains")

    def clean_context(self) -> list[str]:
        return parse_list(
            self.cleaned_data["context"],
            parse_context_url,
            MAX_CONTEXT_URLS,
            "context URLs",
            URL_SEPARATORS,
        )

    def clean_preferred(self) -> list[str]:
        return parse_list(self.cleaned_data["preferred"], parse_domain, MAX_PREFERRED, "domains")

    def save(self, commit: bool = True) -> SourcePolicy:
        policy: SourcePolicy = super().save(commit=False)
        policy.excluded_domains = self.cleaned_data["excluded"]
        policy.context_urls = self.cleaned_data["context"]
        policy.preferred_domains = self.cleaned_data["preferred"]
        if commit:
            policy.save()
        return policy


class PolicyChoiceField(forms.ModelChoiceField):
    """Checks the posted id before Django queries it: a number past the database's
    integers would crash the query (OverflowError on SQLite) rather than match nothing."""

    def to_python(self, value: Any) -> Any:
        if value not in self.empty_values and plain_number(str(value)) is None:
            raise forms.ValidationError(
                self.error_messages["invalid_choice"], code="invalid_choice"
            )
        return super().to_python(value)


class AttachForm(forms.Form):
    """Pick the policy to check against; the empty choice detaches the current one."""

    policy = PolicyChoiceField(
        queryset=SourcePolicy.objects.all(), required=False, empty_label="No policy"
    )
