"""Named source policies and what they are attached to.

A policy holds the agent search tool's settings (SPEC §3): excluded domains (at most
2,000), preferred domains (at most 20), context URLs (at most 20) and the text and voice
prompts. The attachments live here, not on reviews or projects, so those apps keep
their own tables; an attachment goes when its review (or project) goes, and one of an
expired review is hidden with it (`RetentionManager`).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils import timezone

from grounding_app.policies.rules import Rules, indexed
from grounding_app.retention.expiry import RetentionManager

MAX_EXCLUDED = 2000
MAX_PREFERRED = 20
MAX_CONTEXT_URLS = 20


class SourcePolicy(models.Model):
    name = models.CharField(max_length=200, unique=True)
    description = models.TextField(blank=True)
    excluded_domains = models.JSONField(default=list, blank=True)
    preferred_domains = models.JSONField(default=list, blank=True)
    context_urls = models.JSONField(default=list, blank=True)
    text_prompt = models.TextField(blank=True)
    voice_prompt = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ("name",)
        verbose_name_plural = "source policies"

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("policies:detail", args=[self.pk])

    @property
    def rules(self) -> Rules:
        return indexed(
            tuple(self.excluded_domains), tuple(self.preferred_domains), tuple(self.context_urls)
        )

    def tool_json(self) -> dict[str, Any]:
        """The policy as the agent Google Search tool's settings, field names as in SPEC §3."""
        data: dict[str, Any] = {"name": self.name}
        for key, value in (
            ("description", self.description),
            ("contextUrls", self.context_urls),
            ("preferredDomains", self.preferred_domains),
            ("excludeDomains", self.excluded_domains),
        ):
            if value:
                data[key] = value
        prompts = {
            key: value
            for key, value in (("textPrompt", self.text_prompt), ("voicePrompt", self.voice_prompt))
            if value
        }
        if prompts:
            data["promptConfig"] = prompts
        return data


class ReviewPolicy(models.Model):
    """The policy a review's citations are checked against (one per review)."""

    review = models.OneToOneField(
        "reviews.Review", on_delete=models.CASCADE, related_name="source_policy"
    )
    policy = models.ForeignKey(SourcePolicy, on_delete=models.CASCADE, related_name="reviews")
    attached_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    attached_at = models.DateTimeField(default=timezone.now)

    objects = RetentionManager(None, follows=("review",))

    def __str__(self) -> str:
        return f"{self.policy} on {self.review}"


class ProjectPolicy(models.Model):
    """The policy a labeling project's sources are checked against (one per project)."""

    project = models.OneToOneField(
        "annotations.LabelingProject", on_delete=models.CASCADE, related_name="source_policy"
    )
    policy = models.ForeignKey(SourcePolicy, on_delete=models.CASCADE, related_name="projects")
    attached_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    attached_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"{self.policy} on {self.project}"
