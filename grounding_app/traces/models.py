"""Sources of traces, the spans waiting for their trace to complete, and the traces
assembled or dropped.

A source is one API key and one `service.name`: what a team's exporter sends. Its
counters are what the source's page shows (spans received, traces checked, dropped
spans by reason, attribute keys no reader knows). Receiving only stores spans
(`PendingSpan`, under their `PendingTrace`) and returns; a worker assembles a trace once
it is complete and turns it into a line of the source's rolling batch job (one per
source and UTC day, `SourceJob`). An assembled or dropped trace's row stays a while
without its spans, so a span that arrives after its trace was checked is recognised
and counted instead of starting a second, partial trace.
"""

from __future__ import annotations

from django.db import models
from django.urls import reverse
from django.utils import timezone


class TraceSource(models.Model):
    api_key = models.ForeignKey("api.ApiKey", on_delete=models.CASCADE, related_name="+")
    service_name = models.CharField(max_length=200, help_text="The resource's service.name.")
    created_at = models.DateTimeField(default=timezone.now)
    last_seen_at = models.DateTimeField(default=timezone.now)
    spans_received = models.PositiveBigIntegerField(default=0)
    traces_checked = models.PositiveIntegerField(default=0)
    dropped = models.JSONField(default=dict, blank=True, help_text="Dropped spans per reason.")
    unknown_attributes = models.JSONField(
        default=dict, blank=True, help_text="Spans per attribute key no reader knows."
    )
    unknown_not_kept = models.PositiveBigIntegerField(
        default=0,
        help_text="Spans' unknown keys not kept, past TRACES_MAX_UNKNOWN_KEYS distinct keys.",
    )
    job = models.ForeignKey(
        "batch.BatchJob",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="The rolling job today's traces go to.",
    )

    class Meta:
        ordering = ("-last_seen_at", "-id")
        constraints = [
            models.UniqueConstraint(fields=("api_key", "service_name"), name="trace_source_unique")
        ]

    def __str__(self) -> str:
        return f"traces of {self.service_name}"

    def get_absolute_url(self) -> str:
        return reverse("traces:source", args=[self.pk])

    @property
    def dropped_spans(self) -> int:
        return sum(self.dropped.values())


class SourceJob(models.Model):
    """A rolling batch job of a source: one per UTC day (or a fresh one when the day's
    job was cancelled or is full)."""

    source = models.ForeignKey(TraceSource, on_delete=models.CASCADE, related_name="jobs")
    job = models.ForeignKey("batch.BatchJob", on_delete=models.CASCADE, related_name="+")
    day = models.DateField()

    class Meta:
        ordering = ("-day", "-id")


class PendingTrace(models.Model):
    class State(models.TextChoices):
        OPEN = "open", "Waiting for its spans"
        ASSEMBLING = "assembling", "Being assembled"
        CHECKED = "checked", "Sent to its batch job"
        DROPPED = "dropped", "Dropped"

    source = models.ForeignKey(TraceSource, on_delete=models.CASCADE, related_name="traces")
    trace_id = models.CharField(max_length=32)
    state = models.CharField(max_length=12, choices=State.choices, default=State.OPEN)
    first_seen = models.DateTimeField(default=timezone.now)
    last_seen = models.DateTimeField(default=timezone.now)
    has_root = models.BooleanField(default=False)
    has_answer = models.BooleanField(default=False, help_text="An LLM span with a completion.")
    spans = models.PositiveIntegerField(default=0)
    claim = models.CharField(max_length=32, blank=True, help_text="The assembling run's token.")
    claimed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=("source", "trace_id"), name="pending_trace_unique")
        ]
        indexes = [
            models.Index(fields=("state", "last_seen"), name="pending_trace_due"),
            models.Index(fields=("source", "state"), name="pending_trace_source"),
        ]

    def __str__(self) -> str:
        return f"trace {self.trace_id} ({self.state})"


class PendingSpan(models.Model):
    trace = models.ForeignKey(PendingTrace, on_delete=models.CASCADE, related_name="pending")
    span_id = models.CharField(max_length=16)
    data = models.JSONField(help_text="The span as attributes.Span's fields.")

    class Meta:
        constraints = [
            # A retried export (after a 503 or a lost answer) stores each span once.
            models.UniqueConstraint(fields=("trace", "span_id"), name="pending_span_unique")
        ]

    def __str__(self) -> str:
        return f"span {self.span_id}"
