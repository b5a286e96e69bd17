"""A batch job, its lines (input and result, one row each) and the chunks workers run.

Every line of the uploaded file is stored, so a worker on any machine reads its input
from the database and the broker carries nothing but chunk ids. Results are written
onto the line row with a conditional update (`state=pending` -> done/failed) and the
(job, number) pair is unique, so a chunk run twice (a worker killed and its chunk sent
again) stores each line's result once. Jobs expire with the retention period like
reviews; lines and chunks go with their job.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils import timezone

from grounding_app.engine import DEFAULT_CITATION_THRESHOLD
from grounding_app.retention.expiry import RetentionManager


class BatchJob(models.Model):
    class Status(models.TextChoices):
        SPLITTING = "splitting", "Splitting"  # a large upload, stored, not yet in lines
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        CANCELLED = "cancelled", "Cancelled"

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    name = models.CharField(max_length=200, blank=True, help_text="The uploaded file's name.")
    citation_threshold = models.FloatField(default=DEFAULT_CITATION_THRESHOLD)
    source_policy = models.ForeignKey(
        "policies.SourcePolicy",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="Cited sources are checked against it (SPEC §3's precedence).",
    )
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.QUEUED)
    total = models.PositiveIntegerField(default=0, help_text="Non-blank lines in the file.")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="batch_jobs",
    )
    api_key = models.ForeignKey(
        "api.ApiKey", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    local = models.BooleanField(
        default=False, help_text="Checked by `grounding_batch --local` itself: no worker takes it."
    )
    verifier = models.CharField(
        max_length=200,
        blank=True,
        help_text="The verifier that judged its first checked line (name@sha256:<12 hex>).",
    )
    request_id = models.CharField(
        max_length=100,
        blank=True,
        help_text="The client's idempotency key: a retried upload returns this job.",
    )
    # What the LLM judge did for the job's lines (grounding_app/llm_judge), summed as
    # they are written: the claims shown to it (cached ones included) and its requests.
    llm_judge_claims = models.PositiveIntegerField(default=0)
    llm_judge_calls = models.PositiveIntegerField(default=0)
    llm_judge_failures = models.PositiveIntegerField(default=0)
    llm_judge_tokens = models.BigIntegerField(default=0)
    llm_judge_seconds = models.FloatField(default=0.0)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    objects = RetentionManager()

    class Meta:
        ordering = ("-created_at", "-id")
        constraints = [
            models.UniqueConstraint(
                fields=("api_key", "request_id"),
                condition=~models.Q(request_id=""),
                name="batch_job_unique_request_id",
            ),
            # The upload form's key, per person (a key-less job; NULL api_keys differ).
            models.UniqueConstraint(
                fields=("created_by", "request_id"),
                condition=~models.Q(request_id="") & models.Q(api_key__isnull=True),
                name="batch_job_unique_form_request_id",
            ),
        ]

    def __str__(self) -> str:
        return f"batch job {self.public_id} ({self.name or 'unnamed'})"

    def get_absolute_url(self) -> str:
        return reverse("batch:detail", args=[self.public_id])

    @property
    def active(self) -> bool:
        return self.status in (self.Status.SPLITTING, self.Status.QUEUED, self.Status.RUNNING)


class BatchUpload(models.Model):
    """The file of a job too large to split into lines within the request: stored here
    (in the database, so a worker on any machine reads it) and split by a worker
    (`intake.split_job`), then deleted."""

    job = models.OneToOneField(BatchJob, on_delete=models.CASCADE, related_name="upload")
    data = models.BinaryField()

    objects = RetentionManager(None, follows=("job",))

    def __str__(self) -> str:
        return f"upload of batch job {self.job_id}"


class BatchLine(models.Model):
    class State(models.TextChoices):
        PENDING = "pending", "Pending"
        DONE = "done", "Checked"
        FAILED = "failed", "Failed"

    job = models.ForeignKey(BatchJob, on_delete=models.CASCADE, related_name="lines")
    number = models.PositiveIntegerField(help_text="1-based line number in the uploaded file.")
    raw = models.TextField(blank=True, help_text="The line as uploaded.")
    state = models.CharField(max_length=10, choices=State.choices, default=State.PENDING)
    error = models.TextField(blank=True)
    external_id = models.CharField(max_length=200, blank=True)
    source = models.CharField(max_length=200, blank=True, help_text="Dataset source or format.")
    labels = models.JSONField(default=dict, blank=True, help_text="Metadata to group by.")
    answer = models.TextField(blank=True)
    result = models.JSONField(null=True, blank=True, help_text="The grounded answer.")
    support_score = models.FloatField(null=True, blank=True)
    summary = models.CharField(max_length=20, blank=True)
    claim_count = models.PositiveIntegerField(default=0)
    unsupported_count = models.PositiveIntegerField(default=0)
    excluded_cited = models.PositiveIntegerField(
        default=0, help_text="Cited sources that the job's policy excludes."
    )
    judged_by = models.JSONField(
        default=dict,
        blank=True,
        help_text="Checked claims per judge and language: {checked_by: {language: count}}.",
    )
    verifier = models.CharField(
        max_length=200,
        blank=True,
        help_text="The verifier that judged this line; a switch mid-job shows line by line.",
    )
    processed_at = models.DateTimeField(null=True, blank=True)
    answered_at = models.DateTimeField(
        default=timezone.now,
        help_text="The answer's own time where the line gave one (batch/lines.py), else"
        " when the line came; trends count the line then.",
    )
    worker = models.CharField(max_length=200, blank=True, help_text="Who wrote the result.")
    review = models.ForeignKey(
        "reviews.Review", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    objects = RetentionManager(None, follows=("job",))

    class Meta:
        ordering = ("job", "number")
        constraints = [
            models.UniqueConstraint(fields=("job", "number"), name="batch_line_unique_number")
        ]
        indexes = [
            models.Index(fields=("job", "state"), name="batch_line_state"),
            models.Index(fields=("job", "support_score"), name="batch_line_score"),
            # Trends and alerts (grounding_app/monitoring) aggregate a job's lines by the
            # time they were checked; every column they read is in it, so no row is read.
            models.Index(
                fields=(
                    "job",
                    "processed_at",
                    "state",
                    "support_score",
                    "claim_count",
                    "unsupported_count",
                ),
                name="batch_line_trend",
            ),
            # Trends (grounding_app/monitoring/trends.py) by the answer's own time, read
            # from the index alone as alerts read the one above; its summary counts the
            # answers not checkable apart.
            models.Index(
                fields=(
                    "job",
                    "answered_at",
                    "state",
                    "support_score",
                    "claim_count",
                    "unsupported_count",
                    "summary",
                ),
                name="batch_line_answered",
            ),
            # Compare (grounding_app/monitoring/compare.py) finds a job's first line of
            # an id and counts a job's ids by it, reading no row.
            models.Index(
                fields=("job", "state", "external_id", "number"), name="batch_line_external_id"
            ),
        ]

    def __str__(self) -> str:
        return f"line {self.number} of batch job {self.job_id}"


class BatchChunk(models.Model):
    """Lines first..last of a job: one Celery task. `lease_until` is pushed forward after
    every line; a chunk still running past it belonged to a worker that died, and a
    sweeper sends it again (see `running.requeue_stalled`)."""

    class State(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"

    job = models.ForeignKey(BatchJob, on_delete=models.CASCADE, related_name="chunks")
    first = models.PositiveIntegerField()
    last = models.PositiveIntegerField()
    state = models.CharField(max_length=10, choices=State.choices, default=State.QUEUED)
    lease_until = models.DateTimeField(null=True, blank=True)
    sends = models.PositiveIntegerField(default=0)

    objects = RetentionManager(None, follows=("job",))

    class Meta:
        ordering = ("job", "first")
        constraints = [
            models.UniqueConstraint(fields=("job", "first"), name="batch_chunk_unique_first")
        ]
        indexes = [models.Index(fields=("state", "lease_until"), name="batch_chunk_lease")]

    def __str__(self) -> str:
        return f"lines {self.first}-{self.last} of batch job {self.job_id}"


class BatchWorker(models.Model):
    """A worker's heartbeat, written by its sweeper thread every BATCH_SWEEP_SECONDS
    (and deleted when it stops), so `grounding_batch` can tell within seconds that no
    worker serves the queue instead of waiting for one forever."""

    name = models.CharField(max_length=200, unique=True)
    queue = models.CharField(max_length=200)
    seen_at = models.DateTimeField(db_index=True)

    def __str__(self) -> str:
        return f"worker {self.name} on {self.queue}"
