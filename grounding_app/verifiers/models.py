"""An adaptation of the active verifier on a labeling project's labels, run by a worker.

The row is the job's whole state: the page reads its phase, fraction and last line
(written by the worker as it goes) and, at the end, the new verifier's id or the error
that stopped it (a refusal of the labels, or a failure).
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import models
from django.utils import timezone

# A running job whose worker wrote nothing for this long has most likely lost its worker.
STALLED_AFTER = timedelta(minutes=15)


class AdaptJob(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    project = models.ForeignKey(
        "annotations.LabelingProject", null=True, on_delete=models.SET_NULL, related_name="+"
    )
    project_name = models.CharField(max_length=200, help_text="Kept if the project goes.")
    name = models.CharField(max_length=64, help_text="The new verifier's name and directory.")
    directory = models.CharField(max_length=1000, help_text="Where the new verifier goes.")
    start_directory = models.CharField(max_length=1000)
    start_verifier = models.CharField(max_length=200, blank=True)
    options = models.JSONField(default=dict, blank=True, help_text="adapt_verifier's options.")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    phase = models.CharField(max_length=100, blank=True)
    fraction = models.FloatField(default=0.0)
    last_line = models.TextField(blank=True)
    labels = models.PositiveIntegerField(null=True, blank=True, help_text="Lines exported.")
    error = models.TextField(blank=True)
    verifier = models.CharField(max_length=200, blank=True, help_text="The new verifier's id.")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ("-created_at", "-id")

    def __str__(self) -> str:
        return f"adaptation {self.name} on {self.project_name}"

    @property
    def active(self) -> bool:
        return self.status in (self.Status.QUEUED, self.Status.RUNNING)

    @property
    def percent(self) -> int:
        return round(100 * min(1.0, max(0.0, self.fraction)))

    @property
    def stalled(self) -> bool:
        return self.status == self.Status.RUNNING and timezone.now() - self.updated_at > (
            STALLED_AFTER
        )
