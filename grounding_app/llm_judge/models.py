"""The LLM judge's spending, one row per day (UTC), shared by every process: the daily
cap is read from here. And the judge an admin set on the Verifier page, one row that
every web and batch worker follows (none: the LLM_JUDGE_* settings)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class JudgeDay(models.Model):
    day = models.DateField(unique=True)
    calls = models.PositiveIntegerField(default=0)
    failures = models.PositiveIntegerField(default=0)
    prompt_tokens = models.BigIntegerField(default=0)
    completion_tokens = models.BigIntegerField(default=0)
    seconds = models.FloatField(default=0.0)
    # When the judge last gave a ruling, and last gave none on every claim it was asked
    # about (a Try included): the page says "Failing" while the second is the later.
    last_ruled_at = models.DateTimeField(null=True, blank=True)
    last_failed_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.day}: {self.calls} calls, {self.tokens} tokens"

    @property
    def failing(self) -> bool:
        """Its last calls came back with no usable answer."""
        if self.last_failed_at is None:
            return False
        return self.last_ruled_at is None or self.last_failed_at > self.last_ruled_at

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


class JudgeConfig(models.Model):
    """The LLM judge set on the Verifier page; `enabled` off turns the judge off even
    where the settings name one."""

    SINGLETON = 1

    enabled = models.BooleanField(default=True)
    url = models.CharField(max_length=500, blank=True, help_text="The base URL, e.g. …/v1")
    model = models.CharField(max_length=200, blank=True)
    key = models.CharField(max_length=500, blank=True)
    band = models.CharField(max_length=40, default="0.35,0.75")
    unread_languages = models.BooleanField(default=False)
    timeout = models.PositiveIntegerField(default=30)
    concurrency = models.PositiveIntegerField(default=2)
    daily_tokens = models.PositiveBigIntegerField(default=0)
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    username = models.CharField(max_length=150, blank=True, help_text="Kept if the user goes.")
    changed_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"{self.model} at {self.url}" if self.enabled else "off"

    @property
    def key_hint(self) -> str:
        """The key's last four characters, shown only when they leave most of it unsaid."""
        return self.key[-4:] if len(self.key) >= 16 else ""


class JudgeRuling(models.Model):
    """A ruling by the hash of its endpoint, model and prompt, which every web and batch
    worker reads before calling (a repeat on another worker costs nothing). Rows older
    than RETENTION_DAYS go as rulings are added."""

    key = models.CharField(max_length=64, primary_key=True)
    supported = models.BooleanField()
    unsupported_words = models.JSONField(default=list)
    supporting_passage = models.PositiveIntegerField(null=True)
    created = models.DateTimeField(default=timezone.now, db_index=True)
