"""A batch line saved as a review keeps the unsupported words its check returned."""

from __future__ import annotations

from typing import Any

import pytest

from grounding_app.batch import intake, line_reviews, running
from grounding_app.batch.models import BatchChunk, BatchLine
from grounding_app.common.serialize import grounded_from_json
from grounding_app.engine import GroundingEngine
from tests.batch.conftest import jsonl

pytestmark = pytest.mark.django_db


def test_save_as_review_keeps_the_checks_words(
    fake_engine: GroundingEngine, make_user: Any
) -> None:
    job = intake.create_job(jsonl(5), send=False)
    for chunk_id in BatchChunk.objects.filter(job=job).values_list("pk", flat=True):
        running.run_chunk(chunk_id)
    line = BatchLine.objects.select_related("job").get(job=job, number=5)
    result = line.result
    assert result is not None
    segments = [s for c in result["candidates"] for s in c["segments"]]
    claim = next(s for s in segments if s["verdict"] == "unsupported")
    # The check's words, as stored on the line: the review must not find others.
    claim["unsupported"] = [[claim["start"], claim["start"] + 1]]
    BatchLine.objects.filter(pk=line.pk).update(result=result)
    line.refresh_from_db()
    review = line_reviews.review_for(make_user("reviewer"), line)
    stored = [s for c in grounded_from_json(review.result).candidates for s in c.segments]
    assert next(s.unsupported for s in stored if s.verdict == "unsupported") == (
        (claim["start"], claim["start"] + 1),
    )
