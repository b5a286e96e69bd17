"""Alert rules and their deliveries.

A rule watches the checked lines of one trace source (or of every job), optionally only
those whose batch label `key` equals `value`, over fixed windows of `window_minutes`
(aligned to the epoch, so every worker agrees where a window starts). A delivery row is
unique per rule and window: however many workers evaluate the rule, a window alerts
once, and its `idempotency_key` travels in the payload for receivers that see a retry.
"""

from __future__ import annotations

import secrets
import uuid

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils import timezone


def _secret() -> str:
    return secrets.token_urlsafe(32)


class AlertRule(models.Model):
    class Kind(models.TextChoices):
        RATE = "rate", "Unsupported-claim rate above a level"
        LOW_SCORES = "low_scores", "N answers below a support score"

    class Format(models.TextChoices):
        SLACK = "slack", "Slack-compatible JSON"
        GENERIC = "generic", "Generic JSON, signed with HMAC-SHA256"

    name = models.CharField(max_length=200)
    source = models.ForeignKey(
        "traces.TraceSource",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="+",
        help_text="Empty: the lines of every batch job.",
    )
    key = models.CharField(max_length=200, blank=True, help_text="A batch label to filter on.")
    value = models.CharField(max_length=200, blank=True, help_text="The label's value.")
    kind = models.CharField(max_length=20, choices=Kind.choices, default=Kind.RATE)
    window_minutes = models.PositiveIntegerField(default=60)
    level = models.FloatField(
        default=0.2, help_text="Rate rules: the unsupported-claim rate (0-1) to pass."
    )
    min_answers = models.PositiveIntegerField(
        default=10, help_text="Rate rules: answers a window needs before its rate counts."
    )
    score_below = models.FloatField(
        default=0.5, help_text="Low-score rules: an answer below this support score counts."
    )
    count = models.PositiveIntegerField(
        default=5, help_text="Low-score rules: how many such answers in a window alert."
    )
    url = models.URLField(max_length=500, help_text="The webhook (http or https).")
    format = models.CharField(max_length=10, choices=Format.choices, default=Format.GENERIC)
    secret = models.CharField(max_length=100, default=_secret, help_text="The HMAC key.")
    enabled = models.BooleanField(default=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ("name", "id")

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("monitoring:rule", args=[self.pk])


class AlertDelivery(models.Model):
    class State(models.TextChoices):
        PENDING = "pending", "Waiting to be sent"
        SENDING = "sending", "Being sent"
        DELIVERED = "delivered", "Delivered"
        FAILED = "failed", "Gave up"

    rule = models.ForeignKey(AlertRule, on_delete=models.CASCADE, related_name="deliveries")
    window_start = models.DateTimeField(null=True, blank=True, help_text="Empty for a test.")
    window_end = models.DateTimeField(null=True, blank=True)
    test = models.BooleanField(default=False)
    idempotency_key = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    body = models.BinaryField(help_text="The exact bytes sent (and signed) on every attempt.")
    state = models.CharField(max_length=10, choices=State.choices, default=State.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    last_status = models.PositiveIntegerField(null=True, blank=True)
    last_error = models.CharField(max_length=500, blank=True)
    claimed_at = models.DateTimeField(null=True, blank=True)
    next_attempt_at = models.DateTimeField(
        null=True, blank=True, help_text="When a waiting delivery is due (its backoff)."
    )
    created_at = models.DateTimeField(default=timezone.now)
    delivered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("-created_at", "-id")
        constraints = [
            models.UniqueConstraint(
                fields=("rule", "window_start"),
                condition=models.Q(test=False),
                name="alert_delivery_once_per_window",
            )
        ]
        indexes = [models.Index(fields=("state", "next_attempt_at"), name="alert_delivery_due")]

    def __str__(self) -> str:
        return f"delivery {self.idempotency_key} of {self.rule_id}"


class SamplingRule(models.Model):
    """Each day, the claims of one trace source (or batch job) the verifier is least
    sure of go into a labeling project, at most `daily_quota` of them."""

    source = models.ForeignKey(
        "traces.TraceSource", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    job = models.ForeignKey(
        "batch.BatchJob", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    project = models.ForeignKey(
        "annotations.LabelingProject", on_delete=models.CASCADE, related_name="+"
    )
    band = models.FloatField(
        default=0.1, help_text="Claims whose score is within this distance of the threshold."
    )
    daily_quota = models.PositiveIntegerField(default=50)
    enabled = models.BooleanField(default=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ("-created_at", "-id")
        constraints = [
            models.CheckConstraint(
                condition=models.Q(source__isnull=True, job__isnull=False)
                | models.Q(source__isnull=False, job__isnull=True),
                name="sampling_rule_one_scope",
            )
        ]

    def __str__(self) -> str:
        return f"sampling of {self.source or self.job}"


class SampledClaim(models.Model):
    """A claim a rule sent to its project: the unique key keeps it from going twice."""

    rule = models.ForeignKey(SamplingRule, on_delete=models.CASCADE, related_name="sampled")
    line = models.ForeignKey("batch.BatchLine", on_delete=models.CASCADE, related_name="+")
    segment = models.PositiveIntegerField(help_text="The claim's index in the line's result.")
    day = models.DateField(db_index=True)
    stratum = models.CharField(max_length=200, blank=True)
    score = models.FloatField(null=True)
    item = models.ForeignKey(
        "annotations.Item", null=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=("rule", "line", "segment"), name="sampled_claim_once")
        ]

    def __str__(self) -> str:
        return f"line {self.line_id} claim {self.segment}"


class SamplingRun(models.Model):
    """The day's scheduled run of every sampling rule, claimed by inserting this row: a
    day has one, so the workers' schedulers run the rules once a day between them."""

    day = models.DateField(unique=True)
    started_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)
    sent = models.PositiveIntegerField(default=0, help_text="Claims sent by all rules.")

    class Meta:
        ordering = ("-day",)

    def __str__(self) -> str:
        return f"sampling run of {self.day}"
