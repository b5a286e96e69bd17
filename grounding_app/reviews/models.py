"""A saved review: what was checked, how, by whom, and the grounded result to render.

The result is stored as the internal grounded-answer shape (see `serialize`), so a
review renders without running the engine again; the summary fields beside it exist
only so the list can be filtered in the database.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils import timezone

from grounding_app.retention.expiry import RetentionManager


class Review(models.Model):
    class Format(models.TextChoices):
        MANUAL = "manual", "Pasted answer"
        CHECK_GROUNDING = "check_grounding", "Check grounding"
        GEMINI = "gemini", "Gemini"
        AGENT = "agent", "Agent"

    class Summary(models.TextChoices):
        SUPPORTED = "supported", "All supported"
        PARTIAL = "partial", "Partly supported"
        UNSUPPORTED = "unsupported", "Unsupported"
        NO_VERDICT = "no_verdict", "No verdicts"

    # The permalink: random, so a review's address cannot be guessed from another's.
    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    answer = models.TextField(blank=True)
    facts = models.JSONField(default=list, blank=True)  # [{"factText", "attributes"}]
    citation_threshold = models.FloatField(null=True, blank=True)
    source_format = models.CharField(max_length=20, choices=Format.choices)
    engine_checked = models.BooleanField(
        default=False, help_text="Verdicts come from our engine, not from an imported response."
    )
    raw_payload = models.TextField(blank=True, help_text="The imported JSON, as received.")
    result = models.JSONField(help_text="The grounded answer that the page renders.")
    support_score = models.FloatField(null=True, blank=True, db_index=True)
    summary = models.CharField(max_length=20, choices=Summary.choices, db_index=True)
    claim_count = models.PositiveIntegerField(default=0)
    search_text = models.TextField(blank=True, help_text="Answer, facts and titles, for search.")
    rechecked_from = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="rechecks"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="reviews",
    )
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    # Every query sees only reviews inside the retention period (grounding_app.retention).
    objects = RetentionManager()

    class Meta:
        ordering = ("-created_at", "-id")

    def __str__(self) -> str:
        return f"{self.get_source_format_display()} review {self.public_id}"

    def get_absolute_url(self) -> str:
        return reverse("reviews:detail", args=[self.public_id])
