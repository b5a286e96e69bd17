"""Which LLM judge works now: the one saved on the Verifier page, else the LLM_JUDGE_*
settings. Every process re-reads it (the checker, at most once per FOLLOW_SECONDS) and
builds a new judge only when something in it changed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from grounding_app.engine import Band, Escalated
from grounding_app.llm_judge.client import (
    CALL_SECONDS,
    Endpoint,
    EndpointError,
    complete,
    messages,
    parse_ruling,
)
from grounding_app.llm_judge.judge import LLMJudge, Usage
from grounding_app.llm_judge.ledger import DatabaseLedger
from grounding_app.llm_judge.models import JudgeConfig
from grounding_app.llm_judge.rulings import DatabaseRulings

PAGE: Literal["page"] = "page"
SETTINGS: Literal["settings"] = "settings"


@dataclass(frozen=True)
class JudgeSetup:
    """Everything a judge is built from; equal setups build equal judges."""

    endpoint: Endpoint
    band: Band
    concurrency: int
    daily_tokens: int
    unread_languages: bool
    source: Literal["page", "settings"]

    def build(self) -> LLMJudge:
        return LLMJudge(
            self.endpoint,
            self.band,
            DatabaseLedger(),
            concurrency=self.concurrency,
            daily_tokens=self.daily_tokens,
            rulings=DatabaseRulings(),
            unread_languages=self.unread_languages,
        )


def endpoint(url: str, model: str, key: str, timeout: float) -> Endpoint:
    """The endpoint as the judge calls it: its timeout within CALL_SECONDS (a row saved
    before the cap may hold more), and the internal hosts LLM_JUDGE_ALLOW lets it reach."""
    return Endpoint(
        url, model, key, float(min(timeout, CALL_SECONDS)), tuple(settings.LLM_JUDGE_ALLOW)
    )


def from_settings() -> JudgeSetup | None:
    """The judge LLM_JUDGE_* describe; None while LLM_JUDGE_URL is unset."""
    if not settings.LLM_JUDGE_URL:
        return None
    try:
        band = Band.parse(settings.LLM_JUDGE_BAND)
    except ValueError as exc:
        raise ImproperlyConfigured(f"LLM_JUDGE_BAND: {exc}") from exc
    return JudgeSetup(
        endpoint(
            settings.LLM_JUDGE_URL,
            settings.LLM_JUDGE_MODEL,
            settings.LLM_JUDGE_KEY,
            settings.LLM_JUDGE_TIMEOUT,
        ),
        band,
        settings.LLM_JUDGE_CONCURRENCY,
        settings.LLM_JUDGE_DAILY_TOKENS,
        settings.LLM_JUDGE_UNREAD_LANGUAGES,
        SETTINGS,
    )


def from_row(row: JudgeConfig) -> JudgeSetup | None:
    """The judge a saved row describes; None when it is turned off (the form has
    validated the band and URL it saved)."""
    if not row.enabled or not row.url:
        return None
    return JudgeSetup(
        endpoint(row.url, row.model, row.key, row.timeout),
        Band.parse(row.band),
        row.concurrency,
        row.daily_tokens,
        row.unread_languages,
        PAGE,
    )


def saved() -> JudgeConfig | None:
    return JudgeConfig.objects.filter(pk=JudgeConfig.SINGLETON).first()


def current() -> JudgeSetup | None:
    """The judge working now: the Verifier page's when one is saved, else the settings'."""
    row = saved()
    return from_row(row) if row is not None else from_settings()


SAMPLE = Escalated(
    claim="The Eiffel Tower is in Paris.",
    context="",
    evidence=("The Eiffel Tower is a wrought-iron lattice tower in Paris, France.",),
    score=0.5,
    language="en",
)


def try_endpoint(setup: JudgeSetup) -> tuple[bool, str]:
    """Ask the endpoint about one sample claim, as the judge would (its cost counted in
    the day's spending): whether it works, and a sentence for the page saying how. A
    failure is said in one sentence whatever it was (refused, unreachable, too slow, an
    HTTP error, no chat completion), so the page tells no closed, open and filtered
    ports apart; only an address never tried says so."""
    try:
        reply = complete(setup.endpoint, messages(SAMPLE))
    except EndpointError as exc:
        DatabaseLedger().record(Usage(calls=exc.requests, failures=1, seconds=exc.seconds))
        if exc.reason == "internal address":
            return False, f"Not sent: {exc.detail}."
        return False, (
            f"No usable answer from {setup.endpoint.url}: no OpenAI-compatible"
            " chat completion came back in time."
        )
    ruling = parse_ruling(reply.content, len(SAMPLE.evidence))
    DatabaseLedger().record(
        Usage(
            calls=reply.requests,
            failures=int(ruling is None),
            ruled=int(ruling is not None),
            prompt_tokens=reply.prompt_tokens,
            completion_tokens=reply.completion_tokens,
            seconds=reply.seconds,
        )
    )
    spent = f"in {reply.seconds:.2f} s, {reply.prompt_tokens + reply.completion_tokens} tokens"
    if ruling is None:
        return False, f"The endpoint answered ({spent}), but not with the JSON object asked for."
    verdict = "supported" if ruling.supported else "unsupported"
    wrong = "" if ruling.supported else " (wrongly: the sample claim is supported)"
    return True, f"The endpoint answered {spent}: a well-formed ruling, {verdict}{wrong}."
