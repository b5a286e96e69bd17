"""The LLM judge's spending, one row per day (UTC), shared by every process: the daily
cap (LLM_JUDGE_DAILY_TOKENS) is read from here."""

from __future__ import annotations

from django.db import models


class JudgeDay(models.Model):
    day = models.DateField(unique=True)
    calls = models.PositiveIntegerField(default=0)
    failures = models.PositiveIntegerField(default=0)
    prompt_tokens = models.BigIntegerField(default=0)
    completion_tokens = models.BigIntegerField(default=0)
    seconds = models.FloatField(default=0.0)

    def __str__(self) -> str:
        return f"{self.day}: {self.calls} calls, {self.tokens} tokens"

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens
