"""Jobs obey the retention period like reviews: hidden at once, then purged with their
lines and chunks; a review opened from a line is dated with its job and goes with it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import time_machine
from django.core.management import call_command

from grounding_app.batch import intake, line_reviews, running
from grounding_app.batch.models import BatchChunk, BatchJob, BatchLine
from grounding_app.retention.purge import purge_expired
from grounding_app.reviews.models import Review
from tests.batch.conftest import jsonl

pytestmark = pytest.mark.django_db

START = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)


def test_an_expired_job_is_hidden_then_purged_with_its_lines(
    time_machine: time_machine.TimeMachineFixture, fake_engine: Any, make_user: Any, capsys: Any
) -> None:
    time_machine.move_to(START, tick=False)
    old = intake.create_job(jsonl(25), send=False)
    for chunk_id in BatchChunk.objects.filter(job=old).values_list("pk", flat=True):
        running.run_chunk(chunk_id)
    line = BatchLine.objects.select_related("job").get(job=old, number=1)
    time_machine.move_to(START + timedelta(days=29), tick=False)
    review = line_reviews.review_for(make_user("reviewer"), line)
    kept = intake.create_job(jsonl(2), send=False)

    time_machine.move_to(START + timedelta(days=31), tick=False)
    assert list(BatchJob.objects.all()) == [kept]
    assert not BatchLine.objects.filter(job_id=old.pk).exists()  # hidden with their job
    assert not BatchChunk.objects.filter(job_id=old.pk).exists()
    assert BatchLine._base_manager.filter(job_id=old.pk).count() == 25

    audit = purge_expired()
    assert audit.counts == {
        "batch.BatchChunk": 2,
        "batch.BatchJob": 1,
        "batch.BatchLine": 25,
        "reviews.Review": 1,
    }
    assert not BatchLine._base_manager.filter(job_id=old.pk).exists()
    assert BatchLine.objects.filter(job=kept).count() == 2
    assert review.created_at == old.created_at
    assert not Review._base_manager.filter(pk=review.pk).exists()  # opened on day 29, gone
    call_command("purge_expired")
    assert "Nothing has expired" in capsys.readouterr().out
