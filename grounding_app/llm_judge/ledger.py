"""The daily spending in the database."""

from __future__ import annotations

from django.db.models import F
from django.utils import timezone

from grounding_app.llm_judge.judge import Usage
from grounding_app.llm_judge.models import JudgeDay


class DatabaseLedger:
    """Each day's (UTC) calls, tokens and seconds, in one row every process adds to."""

    def spent_today(self) -> int:
        day = JudgeDay.objects.filter(day=timezone.now().date()).first()
        return day.tokens if day is not None else 0

    def record(self, usage: Usage) -> None:
        """Add the usage to today's row; a usage that ruled on a claim marks the judge
        working, one that ruled on none while failing marks it failing."""
        now = timezone.now()
        today = now.date()
        marks: dict[str, object] = {}
        if usage.ruled:
            marks["last_ruled_at"] = now
        elif usage.failures:
            marks["last_failed_at"] = now
        JudgeDay.objects.get_or_create(day=today)
        JudgeDay.objects.filter(day=today).update(
            **marks,
            calls=F("calls") + usage.calls,
            failures=F("failures") + usage.failures,
            prompt_tokens=F("prompt_tokens") + usage.prompt_tokens,
            completion_tokens=F("completion_tokens") + usage.completion_tokens,
            seconds=F("seconds") + usage.seconds,
        )
