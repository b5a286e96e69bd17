"""Jobs without a broker: creation, chunks run in this process, idempotency, cancel,
the sweeper's rules, progress and the results figures."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from grounding_app.batch import intake, line_reviews, results, running
from grounding_app.batch.models import BatchChunk, BatchJob, BatchLine
from grounding_app.engine import CheckRequest, CheckResponse, GroundingEngine
from grounding_app.reviews.models import Review
from tests.batch.conftest import grounding_line, jsonl
from tests.batch.test_lines import gemini_with_bad_offsets

pytestmark = pytest.mark.django_db


def _run_all(job: BatchJob) -> None:
    for chunk_id in BatchChunk.objects.filter(job=job).values_list("pk", flat=True):
        running.run_chunk(chunk_id)


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Chunk ids sent to the broker (none is reached)."""
    ids: list[int] = []
    monkeypatch.setattr("grounding_app.batch.messages.send", ids.extend)
    return ids


def test_bad_lines_are_failed_at_once_and_the_rest_is_chunked(
    settings: Any, fake_engine: GroundingEngine
) -> None:
    settings.BATCH_CHUNK_LINES = 20
    data = jsonl(50, bad=(3,)) + b"\n\n\xff\xfe\n" + grounding_line(99).encode()[:-1] + b"\x00}\n"
    job = intake.create_job(data, name="x.jsonl", send=False)
    assert job.total == 52  # blank lines are not lines; their numbers still count
    failed = dict(BatchLine.objects.filter(job=job, state="failed").values_list("number", "error"))
    assert set(failed) == {3, 53, 54}
    assert failed[3].startswith("line 3: not valid JSON")
    assert failed[53] == "line 53: not UTF-8 (byte 0 of the line)."
    assert failed[54] == "line 54: holds a NUL character."
    chunks = list(BatchChunk.objects.filter(job=job).values_list("first", "last"))
    assert chunks == [(1, 21), (22, 41), (42, 50)]


@pytest.mark.parametrize(
    ("data", "message"),
    [(b"", "no lines"), (b"\n \n", "no lines")],
)
def test_a_file_without_lines_is_refused(data: bytes, message: str) -> None:
    with pytest.raises(intake.BatchInputError, match=message):
        intake.create_job(data)


def test_a_job_of_bad_lines_only_is_done_at_once() -> None:
    job = intake.create_job(b"{\n[1]\n", send=False)
    assert job.status == BatchJob.Status.DONE
    assert results.progress(job).failed == 2


def test_chunks_are_sent_after_commit(
    sent: list[int], django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        job = intake.create_job(jsonl(45))
    assert sent == list(BatchChunk.objects.filter(job=job).values_list("pk", flat=True))


def test_a_chunk_run_twice_writes_each_line_once(fake_engine: GroundingEngine) -> None:
    job = intake.create_job(jsonl(30), send=False)
    chunk = BatchChunk.objects.filter(job=job).first()
    assert chunk is not None
    assert running.run_chunk(chunk.pk) == 20
    BatchChunk.objects.filter(pk=chunk.pk).update(state=BatchChunk.State.RUNNING)  # resent
    assert running.run_chunk(chunk.pk) == 0
    _run_all(job)
    job.refresh_from_db()
    assert job.status == BatchJob.Status.DONE and job.finished_at is not None
    assert BatchLine.objects.filter(job=job, state="done").count() == 30


def test_a_line_written_by_another_run_meanwhile_is_skipped(
    fake_engine: GroundingEngine,
) -> None:
    job = intake.create_job(jsonl(3), send=False)
    chunk = BatchChunk.objects.get(job=job)
    seen: list[str] = []

    def run(request: CheckRequest) -> CheckResponse:
        seen.append(request.answer)
        if len(seen) == 1:  # another worker finishes line 2 while this one checks line 1
            BatchLine.objects.filter(job=job, number=2).update(state="done", worker="other")
        return fake_engine.check(request)

    assert running.run_chunk(chunk.pk, run=run) == 2
    assert len(seen) == 2
    assert BatchLine.objects.get(job=job, number=2).worker == "other"


def test_cancel_stops_a_running_chunk_at_the_next_line(fake_engine: GroundingEngine) -> None:
    job = intake.create_job(jsonl(10), send=False)
    chunk = BatchChunk.objects.get(job=job)
    checked: list[str] = []

    def run(request: CheckRequest) -> CheckResponse:
        checked.append(request.answer)
        if len(checked) == 3:
            assert running.cancel(job)
        return fake_engine.check(request)

    assert running.run_chunk(chunk.pk, run=run) == 3
    job.refresh_from_db()
    assert job.status == BatchJob.Status.CANCELLED
    assert BatchLine.objects.filter(job=job, state="pending").count() == 7
    assert running.run_chunk(chunk.pk, run=run) == 0  # a resent chunk does nothing
    assert not running.cancel(job)  # only once


def test_the_sweeper_resends_what_a_dead_worker_held(sent: list[int]) -> None:
    job = intake.create_job(jsonl(60), send=False)
    first, second, third = BatchChunk.objects.filter(job=job).order_by("first")
    past, future = timezone.now() - timedelta(seconds=1), timezone.now() + timedelta(hours=1)
    BatchChunk.objects.filter(pk=first.pk).update(state="running", lease_until=past)
    BatchChunk.objects.filter(pk=second.pk).update(state="running", lease_until=future)
    BatchChunk.objects.filter(pk=third.pk).update(lease_until=past)  # queued long ago
    # The second chunk is alive, so the queued one is only waiting its turn.
    assert running.requeue_stalled() == [first.pk]
    assert running.requeue_stalled() == []  # its lease was renewed with the resend
    BatchChunk.objects.filter(pk=second.pk).update(state="done")
    # The second chunk has just finished: its worker is about to take the next one.
    assert running.requeue_stalled() == []
    BatchChunk.objects.filter(pk=second.pk).update(lease_until=past)
    # Nobody has written a line for a lease period, yet work waits: the queued chunk's
    # message was lost.
    assert running.requeue_stalled() == [third.pk]
    assert sent == [first.pk, third.pk]
    first.refresh_from_db()
    assert (first.state, first.sends) == ("queued", 1)


def test_the_sweeper_leaves_finished_and_cancelled_jobs_alone(sent: list[int]) -> None:
    job = intake.create_job(jsonl(5), send=False)
    BatchChunk.objects.filter(job=job).update(
        state="running", lease_until=timezone.now() - timedelta(seconds=1)
    )
    running.cancel(job)
    assert running.requeue_stalled() == []


def test_progress_rate_and_eta(fake_engine: GroundingEngine, settings: Any) -> None:
    settings.BATCH_CHUNK_LINES = 10
    job = intake.create_job(jsonl(20, bad=(20,)), send=False)
    start = timezone.now() - timedelta(seconds=10)
    running.run_chunk(BatchChunk.objects.filter(job=job).order_by("first")[0].pk)
    BatchJob.objects.filter(pk=job.pk).update(started_at=start)
    job.refresh_from_db()
    progress = results.progress(job)
    assert (progress.done, progress.failed, progress.pending) == (10, 1, 9)
    assert progress.rate is not None and 0.9 < progress.rate <= 1.0
    assert progress.eta_seconds is not None and 8 < progress.eta_seconds < 10
    assert progress.percent == 55
    assert progress.eta_text.endswith(" s")


def test_results_figures(fake_engine: GroundingEngine) -> None:
    job = intake.create_job(jsonl(30, bad=(1,)), send=False)
    _run_all(job)
    histogram = results.score_histogram(job)
    assert sum(histogram) == 29
    assert results.group_keys(job) == ["format", "source"]
    groups = {g.value: g for g in results.unsupported_by(job, "source")}
    assert set(groups) == {"news", "wiki"}
    assert groups["news"].lines + groups["wiki"].lines == 29
    assert groups["news"].unsupported + groups["wiki"].unsupported == 6  # 5, 10, …, 30
    worst = results.worst_lines(job, limit=6)
    assert {line.number for line in worst} == {5, 10, 15, 20, 25, 30}
    assert [line.number for line in results.failed_lines(job)] == [1]


def test_a_review_is_saved_on_first_demand_only(
    fake_engine: GroundingEngine, make_user: Any
) -> None:
    user = make_user("reviewer")
    job = intake.create_job(jsonl(2), send=False)
    _run_all(job)
    assert Review.objects.count() == 0
    line = BatchLine.objects.select_related("job").get(job=job, number=2)
    review = line_reviews.review_for(user, line)
    line.refresh_from_db()
    assert line_reviews.review_for(user, line) == review
    assert Review.objects.count() == 1
    assert review.answer == line.answer and review.engine_checked
    assert review.citation_threshold == job.citation_threshold


def test_a_source_policy_counts_cited_excluded_sources_and_goes_to_the_review(
    fake_engine: GroundingEngine, make_user: Any
) -> None:
    from grounding_app.policies.models import SourcePolicy
    from grounding_app.policies.services import review_policy

    policy = SourcePolicy.objects.create(name="No tabloids", excluded_domains=["tabloid.example"])
    lines = []
    for n, domain in enumerate(("tabloid.example", "news.tabloid.example", "atlas.example")):
        line = json.loads(grounding_line(n + 1))
        line["facts"][0]["attributes"] = {"domain": domain}
        lines.append(json.dumps(line))
    job = intake.create_job("\n".join(lines).encode(), source_policy=policy, send=False)
    _run_all(job)
    cited = dict(BatchLine.objects.filter(job=job).values_list("number", "excluded_cited"))
    assert cited == {1: 1, 2: 1, 3: 0}
    assert results.excluded_answers(job) == 2
    line = BatchLine.objects.select_related("job__source_policy").get(job=job, number=1)
    review = line_reviews.review_for(make_user("reviewer"), line)
    assert review_policy(review) == policy


MIXED_METADATA = [
    '{"id":"a","claim":"The sky is blue.","facts":[{"text":"The sky is blue."}]}',
    '{"id":"b","claim":"Grass is green.","facts":[{"text":"Grass is green."}],'
    '"meta":{"model":"m1"}}',
    json.dumps(
        {
            "answerCandidate": "Snow is white.",
            "facts": [{"factText": "Snow is white."}],
            "userLabels": {"team": "search"},
        }
    ),
]


def test_lines_with_different_metadata_offer_every_key(fake_engine: GroundingEngine) -> None:
    """Issue 25 item 11: a line with `meta` after one without, and two formats in one
    file, made the group-by choice (and so the results page) fail."""
    job = intake.create_job("\n".join(MIXED_METADATA).encode(), send=False)
    _run_all(job)
    assert results.group_keys(job) == ["format", "model", "source", "team"]
    groups = {g.value: g.lines for g in results.unsupported_by(job, "model")}
    assert groups == {"(none)": 2, "m1": 1}


@pytest.mark.parametrize("by", ["", "model", "team", "format"])
def test_the_results_page_shows_lines_with_different_metadata(
    fake_engine: GroundingEngine, make_user: Any, by: str
) -> None:
    job = intake.create_job("\n".join(MIXED_METADATA).encode(), send=False)
    _run_all(job)
    client = Client()
    client.force_login(make_user("reviewer"))
    response = client.get(job.get_absolute_url(), {"by": by} if by else {})
    assert response.status_code == 200
    assert results.progress(job).done == 3


@pytest.mark.parametrize(
    "line",
    [
        '{"id":"n","claim":"Nul\\u0000 here.","facts":[{"text":"Nul here."}]}',
        '{"id":"n","claim":"Sky.","facts":[{"text":"Sky."}],"meta":{"m":"a\\u0000"}}',
        '{"id":"n","claim":"Sky.","facts":[{"text":"Sky."}],"meta":{"\\u0000":"a"}}',
        '{"answerCandidate":"Sky.","facts":[{"factText":"S\\u0000ky."}]}',
        '{"id":"n","claim":"Sky.","facts":[{"text":"Sky."}],"meta":{"\\udfff":"a"}}',
    ],
)
def test_a_line_holding_an_unstorable_string_fails_alone(
    fake_engine: GroundingEngine, line: str
) -> None:
    """Issue 25 item 16: an escaped U+0000 (or a lone surrogate) is refused on its own
    line, not sent to PostgreSQL, which cannot store it and lost the whole upload."""
    data = "\n".join([grounding_line(1), line, grounding_line(3)]).encode()
    job = intake.create_job(data, send=False)
    _run_all(job)
    states = dict(BatchLine.objects.filter(job=job).values_list("number", "state"))
    assert states == {1: "done", 2: "failed", 3: "done"}
    error = BatchLine.objects.get(job=job, number=2).error
    assert error.startswith("line 2: ")
    assert "null character" in error or "lone surrogate" in error


def test_a_line_with_a_warning_is_checked_and_keeps_the_warning(
    fake_engine: GroundingEngine,
) -> None:
    """Issue 25 item 6: a Gemini line whose offsets fall outside its text is checked (our
    engine reads the answer itself) and says what was wrong, in exports and the API."""
    data = f"{grounding_line(1)}\n{gemini_with_bad_offsets()}".encode()
    job = intake.create_job(data, send=False)
    _run_all(job)
    line = BatchLine.objects.get(job=job, number=2)
    assert line.state == BatchLine.State.DONE
    assert line.error.startswith("line 2 (checked all the same): ")
    assert BatchLine.objects.get(job=job, number=1).error == ""
