"""A batch line whose sources came without text says "not checkable" where its claims
are counted (issue 44, item 19), not "0 / 2" unsupported."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from grounding_app.batch import intake, running
from grounding_app.batch.models import BatchLine
from grounding_app.engine import GroundingEngine

pytestmark = pytest.mark.django_db

GEMINI = Path(__file__).resolve().parents[1] / "fixtures" / "imports" / "gemini_web_search.json"


def test_the_worst_answers_say_not_checkable(
    fake_engine: GroundingEngine, make_user: Callable[..., Any]
) -> None:
    line = json.dumps(json.loads(GEMINI.read_text(encoding="utf-8")))
    job = intake.create_job((line + "\n").encode(), name="gemini.jsonl", send=False)
    for chunk in job.chunks.all():
        running.run_chunk(chunk.pk, worker="test")
    stored = BatchLine.objects.get(job=job)
    assert (stored.summary, stored.claim_count, stored.unsupported_count) == (
        "not_checkable",
        0,
        0,
    )
    client = Client()
    client.force_login(make_user("reviewer"))
    page = client.get(job.get_absolute_url()).content.decode()
    worst = page[page.index('id="worst"') :]
    row = re.search(r"<tbody>.*?</tr>", worst, flags=re.S)
    assert row is not None
    assert ">not checkable</span>" in row[0] and "0 / " not in row[0]
