"""The site's retention period (one row, edited in the admin) and the purge history.

The history holds counts and times only, never what was deleted: a record of a purge
that quoted the purged text would defeat the purge.
"""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MinValueValidator
from django.db import models

SINGLETON_PK = 1


def default_retention_days() -> int:
    """The period before an admin sets one: RETENTION_DAYS (a callable, so migrations
    do not freeze the value the environment had when they were written)."""
    return settings.RETENTION_DAYS


class RetentionSettings(models.Model):
    retention_days = models.PositiveIntegerField(
        default=default_retention_days,
        validators=[MinValueValidator(1)],
        help_text=(
            "Reviews and annotation items older than this many days are hidden at once and"
            " deleted by the next purge. A labeling project may set its own period."
        ),
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "retention period"
        verbose_name_plural = "retention period"

    def __str__(self) -> str:
        return f"{self.retention_days} days"

    def save(self, *args: object, **kwargs: object) -> None:
        self.pk = SINGLETON_PK
        super().save(*args, **kwargs)  # type: ignore[arg-type]

    @classmethod
    def site_days(cls) -> int:
        """The site period: the admin's choice, else RETENTION_DAYS; never below 1."""
        days = cls.objects.filter(pk=SINGLETON_PK).values_list("retention_days", flat=True)
        return max(1, days.first() or default_retention_days())


class Purge(models.Model):
    class Trigger(models.TextChoices):
        COMMAND = "command", "purge_expired command"
        SCHEDULE = "schedule", "Background schedule"

    started_at = models.DateTimeField()
    finished_at = models.DateTimeField(
        null=True, blank=True, help_text="Empty: the purge was stopped before it finished."
    )
    trigger = models.CharField(max_length=20, choices=Trigger.choices)
    retention_days = models.PositiveIntegerField(help_text="The site period when it ran.")
    cutoff = models.DateTimeField(help_text="Rows created before this were expired (site period).")
    counts = models.JSONField(
        default=dict, blank=True, help_text="Rows deleted per model, e.g. {'reviews.Review': 3}."
    )
    total = models.PositiveIntegerField(default=0)
    wal_truncated = models.BooleanField(
        null=True, blank=True, help_text="SQLite only: the write-ahead log was checkpointed."
    )

    class Meta:
        verbose_name = "purge"
        verbose_name_plural = "purge history"
        ordering = ("-started_at", "-id")

    def __str__(self) -> str:
        return f"Purge of {self.started_at:%Y-%m-%d %H:%M} ({self.total} rows)"

    @property
    def status(self) -> str:
        return "finished" if self.finished_at else "not finished (stopped, or still running)"
