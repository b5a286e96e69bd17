"""A saved review: what was checked, how, by whom, and the grounded result to render.

The result is stored as the internal grounded-answer shape (see `serialize`), so a
review renders without running the engine again; the summary fields beside it exist
only so the list can be filtered in the database.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils import timezone

from grounding_app.retention.expiry import RetentionManager, site_days


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
    verifier = models.CharField(
        max_length=200,
        blank=True,
        help_text="The verifier that judged (name@sha256:<12 hex>); empty when none did.",
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

    @property
    def expires_at(self) -> datetime:
        """When the retention period ends and the review disappears (site period)."""
        return self.created_at + timedelta(days=site_days())


class ReviewerVerdict(models.Model):
    """A reviewer's own verdict on one claim of a review, kept apart from the model's.

    One current verdict per claim; every change is also written to
    `ReviewerVerdictChange` (who, when, from what to what), which is never edited.
    Claims are named by candidate index and claim number as the page shows them.
    """

    class Verdict(models.TextChoices):
        SUPPORTED = "supported", "Supported"
        UNSUPPORTED = "unsupported", "Unsupported"
        NO_CHECK = "no_check", "No check needed"

    review = models.ForeignKey(Review, on_delete=models.CASCADE, related_name="verdicts")
    candidate = models.PositiveIntegerField(default=0)
    claim = models.PositiveIntegerField(help_text="1-based claim number within the candidate.")
    verdict = models.CharField(max_length=20, choices=Verdict.choices, blank=True)
    note = models.TextField(blank=True)
    model_verdict = models.CharField(max_length=20, blank=True)
    disagrees = models.BooleanField(
        default=False, help_text="The reviewer's verdict differs from the model's."
    )
    set_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    set_at = models.DateTimeField(default=timezone.now)

    objects = RetentionManager(None, follows=("review",))

    class Meta:
        ordering = ("review", "candidate", "claim")
        constraints = [
            models.UniqueConstraint(
                fields=("review", "candidate", "claim"), name="one_reviewer_verdict_per_claim"
            ),
        ]

    def __str__(self) -> str:
        return f"claim {self.claim}: {self.verdict or 'no verdict'}"


class ReviewerVerdictChange(models.Model):
    """The audit trail of reviewer verdicts: one row per change, never edited."""

    review = models.ForeignKey(Review, on_delete=models.CASCADE, related_name="verdict_changes")
    candidate = models.PositiveIntegerField(default=0)
    claim = models.PositiveIntegerField()
    verdict = models.CharField(max_length=20, blank=True)
    note = models.TextField(blank=True)
    previous_verdict = models.CharField(max_length=20, blank=True)
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    changed_at = models.DateTimeField(default=timezone.now)

    objects = RetentionManager(None, follows=("review",))

    class Meta:
        ordering = ("changed_at", "id")

    def __str__(self) -> str:
        return f"claim {self.claim}: {self.previous_verdict or '—'} → {self.verdict or '—'}"
