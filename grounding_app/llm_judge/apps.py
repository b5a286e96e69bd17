from __future__ import annotations

from django.apps import AppConfig


class LLMJudgeConfig(AppConfig):
    name = "grounding_app.llm_judge"
    label = "llm_judge"
    verbose_name = "LLM judge"
