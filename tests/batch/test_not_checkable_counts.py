"""A line not checkable (its sources came without text) is counted apart in the job's
rates (issue 44, item 19): it was one more answer "with no unsupported claim"."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from grounding_app.batch import intake, results, running
from grounding_app.batch.models import BatchJob
from grounding_app.engine import GroundingEngine
from tests.batch.conftest import grounding_line

pytestmark = pytest.mark.django_db

GEMINI = Path(__file__).resolve().parents[1] / "fixtures" / "imports" / "gemini_web_search.json"


def _job() -> BatchJob:
    gemini = json.dumps(json.loads(GEMINI.read_text(encoding="utf-8")))
    body = "\n".join([gemini, gemini, grounding_line(3, supported=False), grounding_line(4)])
    job = intake.create_job((body + "\n").encode(), name="mixed.jsonl", send=False)
    for chunk in job.chunks.all():
        running.run_chunk(chunk.pk, worker="test")
    return job


def test_the_rates_leave_not_checkable_lines_out(fake_engine: GroundingEngine) -> None:
    groups = results.unsupported_by(_job(), "format")
    # the two Gemini lines were 2 answers with no unsupported claim
    assert sorted((g.lines, g.unsupported) for g in groups) == [(0, 0), (2, 1)]
    assert [g.not_checkable for g in groups] == [0, 2]  # only not checkable: last
    assert groups[-1].mean_score is None


def test_the_page_says_how_many_are_not_checkable(
    fake_engine: GroundingEngine, make_user: Callable[..., Any]
) -> None:
    job = _job()
    client = Client()
    client.force_login(make_user("reviewer"))
    page = client.get(job.get_absolute_url()).content.decode()
    rates = page[page.index('id="rates"') : page.index('id="worst"')]
    assert '<th scope="col" class="num">Not checkable</th>' in rates
    assert re.search(r'data-stat="not-checkable">2 not checkable: answers whose sources', rates)
    cells = re.findall(r"<tr><td><bdi>[^<]*</bdi></td>(.*?)</tr>", rates)
    assert '<td class="num">0</td><td class="num">0</td><td class="num">—</td>' in cells[-1]
