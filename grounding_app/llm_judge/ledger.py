"""The daily spending in the database, and the judge the settings describe."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db.models import F
from django.utils import timezone

from grounding_app.engine import Band
from grounding_app.llm_judge.client import Endpoint
from grounding_app.llm_judge.judge import LLMJudge, Usage
from grounding_app.llm_judge.models import JudgeDay


class DatabaseLedger:
    """Each day's (UTC) calls, tokens and seconds, in one row every process adds to."""

    def spent_today(self) -> int:
        day = JudgeDay.objects.filter(day=timezone.now().date()).first()
        return day.tokens if day is not None else 0

    def record(self, usage: Usage) -> None:
        today = timezone.now().date()
        JudgeDay.objects.get_or_create(day=today)
        JudgeDay.objects.filter(day=today).update(
            calls=F("calls") + usage.calls,
            failures=F("failures") + usage.failures,
            prompt_tokens=F("prompt_tokens") + usage.prompt_tokens,
            completion_tokens=F("completion_tokens") + usage.completion_tokens,
            seconds=F("seconds") + usage.seconds,
        )


def from_settings() -> LLMJudge | None:
    """The judge LLM_JUDGE_* describe; None while LLM_JUDGE_URL is unset."""
    if not settings.LLM_JUDGE_URL:
        return None
    try:
        band = Band.parse(settings.LLM_JUDGE_BAND)
    except ValueError as exc:
        raise ImproperlyConfigured(f"LLM_JUDGE_BAND: {exc}") from exc
    endpoint = Endpoint(
        settings.LLM_JUDGE_URL,
        settings.LLM_JUDGE_MODEL,
        settings.LLM_JUDGE_KEY,
        float(settings.LLM_JUDGE_TIMEOUT),
    )
    return LLMJudge(
        endpoint,
        band,
        DatabaseLedger(),
        concurrency=settings.LLM_JUDGE_CONCURRENCY,
        daily_tokens=settings.LLM_JUDGE_DAILY_TOKENS,
    )
