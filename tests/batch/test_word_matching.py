"""A batch line keeps, per claim, its language and what judged it; the job's page counts
claims per judge and language ("Word matching: 5 claims (Hebrew 4, Chinese 1)") and
marks each listed answer that word matching judged; English-only jobs show neither."""

from __future__ import annotations

import importlib
import json
from typing import Any

import pytest
from django.apps import apps
from django.test import Client

from grounding_app.batch import intake, results, running
from grounding_app.batch.models import BatchChunk, BatchJob, BatchLine
from grounding_app.engine import GroundingEngine

pytestmark = pytest.mark.django_db

ENGLISH = ("Avalon was founded in 1901 by the river.", "Avalon was founded in 1901.")
HEBREW = (
    "העיר אבלון נוסדה בשנת 1901 ליד הנהר. בעיר יש גשר עתיק.",
    "העיר אבלון נוסדה בשנת 1901. בעיר יש גשר עתיק.",
)
CHINESE = ("城市在河边有一座古老的桥。", "城市在河边有一座古老的桥。")


def line(n: int, fact_and_claim: tuple[str, str]) -> str:
    fact, claim = fact_and_claim
    data = {"id": f"ex-{n}", "source": "mixed", "facts": [{"text": fact}], "claim": claim}
    return json.dumps(data, ensure_ascii=False)


def run_job(*lines: tuple[str, str]) -> BatchJob:
    data = "\n".join(line(n, pair) for n, pair in enumerate(lines, start=1)) + "\n"
    job = intake.create_job(data.encode(), name="mixed.jsonl", send=False)
    for chunk_id in BatchChunk.objects.filter(job=job).values_list("pk", flat=True):
        running.run_chunk(chunk_id)
    job.refresh_from_db()
    return job


@pytest.fixture
def reviewer(make_user: Any) -> Client:
    client = Client()
    client.force_login(make_user("reviewer"))
    return client


@pytest.fixture
def mixed_job(fake_engine: GroundingEngine) -> BatchJob:
    """Three English answers (one claim each), two Hebrew (two claims each), one Chinese."""
    return run_job(ENGLISH, HEBREW, ENGLISH, CHINESE, HEBREW, ENGLISH)


def test_each_line_keeps_its_claims_judges_and_languages(mixed_job: BatchJob) -> None:
    judged = dict(BatchLine.objects.filter(job=mixed_job).values_list("number", "judged_by"))
    assert judged == {
        1: {"feature_judge": {"en": 1}},
        2: {"word_matching": {"he": 2}},
        3: {"feature_judge": {"en": 1}},
        4: {"word_matching": {"zh": 1}},
        5: {"word_matching": {"he": 2}},
        6: {"feature_judge": {"en": 1}},
    }
    segments = BatchLine.objects.get(job=mixed_job, number=2).result["candidates"][0]["segments"]
    assert [(s["language"], s["checked_by"]) for s in segments] == [("he", "word_matching")] * 2


def test_the_counts_per_judge_and_language(mixed_job: BatchJob) -> None:
    counts, matched = results.judge_counts(mixed_job)
    assert [c.text for c in counts] == [
        "Feature judge: 3 claims (English 3)",
        "Word matching: 5 claims (Hebrew 4, Chinese 1)",
    ]
    assert matched == ["he", "zh"]


def test_the_results_page_shows_the_counts_and_marks_the_lines(
    reviewer: Client, mixed_job: BatchJob
) -> None:
    page = reviewer.get(mixed_job.get_absolute_url()).content.decode()
    assert (
        '<li data-judge="word_matching" class="is-word-matching">'
        '<span class="wm-mark wm-icon" aria-hidden="true"></span>'
        "Word matching: 5 claims (Hebrew 4, Chinese 1)</li>"
    ) in page
    assert '<li data-judge="feature_judge">Feature judge: 3 claims (English 3)</li>' in page
    assert (
        "Claims in Hebrew and Chinese were checked by word matching; "
        "this feature judge reads English." in page
    )
    worst = page.split("Worst answers first", 1)[1]
    rows = [r for r in worst.split("<tr>")[2:] if "<td" in r]
    marked = [r for r in rows if "wm-mark" in r]
    assert len(marked) == 3 and len(rows) == 6
    hebrew = next(r for r in marked if "אבלון" in r)
    assert ">Hebrew: word matching · 2 of 2 claims</span>" in hebrew
    assert "All 2 checked claims are in Hebrew: checked by word matching" in hebrew
    chinese = next(r for r in marked if "城市" in r)
    assert ">Chinese: word matching · 1 of 1 claim</span>" in chinese


def test_the_download_names_each_claims_language_and_judge(
    reviewer: Client, mixed_job: BatchJob
) -> None:
    response = reviewer.get(f"/batch/{mixed_job.public_id}/results.jsonl")
    rows = [json.loads(x) for x in b"".join(response.streaming_content).splitlines()]
    assert [(c["language"], c["checkedBy"]) for c in rows[1]["claims"]] == [
        ("he", "WORD_MATCHING")
    ] * 2
    assert rows[0]["claims"][0]["checkedBy"] == "FEATURE_JUDGE"


def test_an_english_job_shows_no_word_matching(
    reviewer: Client, fake_engine: GroundingEngine
) -> None:
    job = run_job(ENGLISH, ENGLISH)
    page = reviewer.get(job.get_absolute_url()).content.decode()
    assert "Feature judge: 2 claims (English 2)" in page
    assert "word matching" not in page.lower() and "wm-" not in page


def test_lines_checked_before_count_as_none_and_still_render(
    reviewer: Client, mixed_job: BatchJob
) -> None:
    """A line stored before the engine named its judges: no counts, no mark, no error;
    the migration counts the lines whose stored result does name them."""
    old = BatchLine.objects.get(job=mixed_job, number=2)
    result = dict(old.result, version=2)
    for segment in result["candidates"][0]["segments"]:
        segment.pop("language"), segment.pop("checked_by")
    BatchLine.objects.filter(pk=old.pk).update(result=result, judged_by={})
    BatchLine.objects.filter(job=mixed_job, number=5).update(judged_by={})
    counts, _ = results.judge_counts(mixed_job)
    assert counts[-1].text == "Word matching: 1 claim (Chinese 1)"
    page = reviewer.get(mixed_job.get_absolute_url())
    assert page.status_code == 200

    migration = importlib.import_module("grounding_app.batch.migrations.0002_line_judged_by")
    migration.count_stored(apps, None)
    judged = dict(BatchLine.objects.filter(job=mixed_job).values_list("number", "judged_by"))
    assert judged[2] == {} and judged[5] == {"word_matching": {"he": 2}}
    counts, _ = results.judge_counts(mixed_job)
    assert counts[-1].text == "Word matching: 3 claims (Hebrew 2, Chinese 1)"
