"""The judge's rulings in the database, shared by every process (gunicorn's workers and
the batch workers are separate processes: a cache in memory is one worker's only)."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from grounding_app.engine import Ruling
from grounding_app.llm_judge.models import JudgeRuling


class DatabaseRulings:
    def get(self, key: str) -> Ruling | None:
        row = JudgeRuling.objects.filter(key=key).first()
        if row is None:
            return None
        return Ruling(row.supported, tuple(row.unsupported_words), row.supporting_passage)

    def put(self, key: str, ruling: Ruling) -> None:
        now = timezone.now()
        try:
            with transaction.atomic():
                JudgeRuling.objects.create(
                    key=key,
                    supported=ruling.supported,
                    unsupported_words=list(ruling.unsupported_words),
                    supporting_passage=ruling.supporting_passage,
                    created=now,
                )
        except IntegrityError:  # another worker ruled on it meanwhile
            return
        JudgeRuling.objects.filter(
            created__lt=now - timedelta(days=settings.RETENTION_DAYS)
        ).delete()
