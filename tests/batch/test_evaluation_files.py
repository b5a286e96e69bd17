"""Files in from evaluation tools: Langfuse traces (a JSON export or JSONL) and RAGAS
datasets (JSONL, JSON or CSV) through the upload page and the batch API, detected per
line or per file, each bad record failing alone, non-ASCII text kept."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import Client

from grounding_app.api.models import ApiKey
from grounding_app.batch import intake, line_reviews, lines, running
from grounding_app.batch.models import BatchChunk, BatchJob, BatchLine
from grounding_app.engine import GroundingEngine
from grounding_app.formats.check_grounding import FormatError
from tests.batch.conftest import grounding_line

pytestmark = pytest.mark.django_db

DATA = Path(__file__).resolve().parents[1] / "data"
HEBREW_TRACE_ANSWER = "הספרייה נפתחת ביום שישי בשעה 8. 📚 בשבת היא סגורה."


def _run(job: BatchJob) -> None:
    for chunk_id in BatchChunk.objects.filter(job=job).values_list("pk", flat=True):
        running.run_chunk(chunk_id)
    job.refresh_from_db()


def _lines(job: BatchJob) -> list[BatchLine]:
    return list(BatchLine.objects.filter(job=job).order_by("number"))


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ({"id": "t", "sessionId": "s", "output": "a"}, "langfuse"),
        ({"observations": [], "input": "q"}, "langfuse"),
        ({"question": "q", "contexts": [], "answer": "a"}, "ragas"),
        ({"user_input": "q", "retrieved_contexts": [], "response": "a"}, "ragas"),
        ({"claim": "c", "facts": [], "question": "q"}, None),  # the grounding schema's
        ({"answerCandidate": "a", "facts": [], "sessionId": "s"}, None),  # a request
        ({"request": {}, "response": {}}, None),  # a check-grounding pair, not RAGAS
        ([{"citations": {}}], None),  # an agent session output
        ({"answer": "a"}, None),
    ],
)
def test_each_line_is_detected_by_its_keys(data: object, expected: str | None) -> None:
    assert lines.detect(data) == expected


def test_a_line_with_both_shapes_keys_is_ambiguous() -> None:
    with pytest.raises(FormatError, match=r"ambiguous: .*\(sessionId\) and RAGAS keys \(question"):
        lines.detect({"sessionId": "s", "output": "a", "question": "q"})


def test_mixed_jsonl_each_line_read_in_its_own_format(fake_engine: GroundingEngine) -> None:
    traces = (DATA / "langfuse_traces.jsonl").read_text("utf-8").splitlines()
    rows = (DATA / "ragas_dataset.jsonl").read_text("utf-8").splitlines()
    data = "\n".join([grounding_line(1), traces[0], rows[1], traces[3], "{bad"]) + "\n"
    job = intake.create_job(data.encode(), send=False)
    _run(job)
    got = _lines(job)
    assert [line.state for line in got] == ["done", "done", "done", "failed", "failed"]
    assert [line.labels.get("format") for line in got[:3]] == ["grounding", "langfuse", "ragas"]
    assert got[1].external_id == "7f3c2a10-0001" and got[1].labels["tenant"] == "harbour"
    assert got[2].answer == "גובה המגדל הוא 212 מטר. 🏙️"
    assert got[3].error.startswith("line 4 (Langfuse trace): observations: no retrieved")
    assert got[4].error.startswith("line 5: not valid JSON")
    assert got[1].claim_count == 2 and got[1].support_score is not None


def test_a_langfuse_json_export_is_read_trace_by_trace(fake_engine: GroundingEngine) -> None:
    job = intake.create_job((DATA / "langfuse_traces.json").read_bytes(), send=False)
    _run(job)
    got = _lines(job)
    assert [line.number for line in got] == [1, 2, 3, 4]  # the array's elements
    assert [line.state for line in got] == ["done", "done", "done", "failed"]
    assert got[1].answer == HEBREW_TRACE_ANSWER
    assert json.loads(got[1].raw)["id"] == "7f3c2a10-0002"  # each trace stored as one line
    # the retriever's Hebrew passages (with an emoji) are the facts the worker checks on
    facts = lines.parse(got[1].raw, 2).item.facts
    assert [f.text for f in facts] == [
        "הספרייה פתוחה ביום שישי משעה 8 עד 12 בצהריים. 📚",
        "בשבת הספרייה סגורה.",
    ]
    assert "line 4 (Langfuse trace)" in got[3].error
    assert {line.labels["environment"] for line in got[:2]} == {"production"}


def test_the_api_page_shape_and_one_pretty_printed_trace_are_read_whole() -> None:
    traces = json.loads((DATA / "langfuse_traces.json").read_text("utf-8"))
    page = json.dumps({"data": traces[:2], "meta": {"page": 1, "totalItems": 2}}, indent=2)
    assert [r.number for r in lines.file_records(page.encode()) or []] == [1, 2]
    one = json.dumps(traces[0], indent=2).encode()
    records = lines.file_records(one)
    assert records is not None and len(records) == 1
    assert lines.file_records(b'[{"citations": {}}]\n') is None  # an agent output line
    assert lines.file_records(grounding_line(1).encode() + b"\n") is None


def test_a_bad_element_fails_alone_even_with_a_lone_surrogate() -> None:
    traces = json.loads((DATA / "langfuse_traces.json").read_text("utf-8"))
    text = json.dumps([traces[0], {"question": "\ud800", "contexts": ["c"], "answer": "a"}])
    job = intake.create_job(text.encode(), send=False)
    first, second = _lines(job)
    assert first.state == "pending"
    assert second.state == "failed" and "lone surrogate" in second.error


def test_a_ragas_excel_csv_keeps_lines_and_text(fake_engine: GroundingEngine) -> None:
    job = intake.create_job((DATA / "ragas_excel.csv").read_bytes(), send=False)
    _run(job)
    got = _lines(job)
    # line numbers of the file: the header is line 1, the first row spans lines 2-3
    assert [line.number for line in got] == [2, 4, 6, 7]
    assert [line.state for line in got] == ["done", "done", "done", "failed"]
    assert got[0].answer == "The Corran Bridge is 1,204 metres long.\nIt opened in 1968."
    assert got[1].answer == "הגשר נפתח בשנת 1968. 🌉"
    assert got[3].error == (
        "line 7 (RAGAS row): contexts: starts with [ but is not a list of strings in JSON "
        "or Python syntax."
    )
    assert got[0].labels == {"format": "ragas"}


def test_a_semicolon_csv_and_a_csv_that_is_not_utf8() -> None:
    job = intake.create_job((DATA / "ragas_semicolon.csv").read_bytes(), send=False)
    assert [line.answer for line in _lines(job)] == ["The museum is on Dock Road."]
    latin1 = "question,contexts,answer\ncafé,['c'],a\n".encode("latin-1")
    with pytest.raises(intake.BatchInputError, match=r'not UTF-8 .*"CSV UTF-8"'):
        intake.create_job(latin1, send=False)


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be", "utf-32"])
def test_a_utf16_or_utf32_file_is_refused_whole(encoding: str) -> None:
    """Excel's "Unicode text" CSV, with or without a byte-order mark (issue 32, item 14)."""
    csv_text = "question,contexts,answer\nWhere?,['It is on Dock Road.'],On Dock Road.\n"
    for text in (csv_text, '{"claim": "x", "facts": [{"text": "x"}]}\n'):
        with pytest.raises(intake.BatchInputError, match=r"UTF-16 or UTF-32, not UTF-8"):
            intake.create_job(text.encode(encoding), send=False)


@pytest.fixture
def reviewer(make_user: Any) -> Client:
    client = Client()
    client.force_login(make_user("reviewer"))
    return client


@pytest.mark.parametrize(
    ("name", "total", "failed"),
    [
        ("langfuse_traces.json", 4, 1),
        ("langfuse_traces.jsonl", 4, 1),
        ("ragas_dataset.jsonl", 3, 0),
        ("ragas_excel.csv", 4, 1),
    ],
)
def test_the_upload_page_takes_each_file(
    reviewer: Client, name: str, total: int, failed: int
) -> None:
    upload = SimpleUploadedFile(name, (DATA / name).read_bytes())
    response = reviewer.post("/batch/", {"file": upload, "citation_threshold": "0.6"})
    job = BatchJob.objects.get()
    assert response.status_code == 302 and response["Location"] == job.get_absolute_url()
    assert job.total == total
    assert BatchLine.objects.filter(job=job, state="failed").count() == failed
    assert reviewer.get(job.get_absolute_url()).status_code == 200


@pytest.mark.parametrize(
    ("name", "total", "failed_line"),
    [("langfuse_traces.json", 4, 4), ("ragas_excel.csv", 4, 7)],
)
def test_the_api_takes_each_file_and_counts_records_for_the_quota(
    client: Client, settings: Any, name: str, total: int, failed_line: int
) -> None:
    key = ApiKey.issue("files")[1]
    body = (DATA / name).read_bytes()
    assert body.count(b"\n") > total  # more lines than records: the quota counts records
    settings.BATCH_KEY_WAITING_LINES = total
    response = client.post(
        "/v1/batchJobs", body, content_type="application/json", headers={"x-goog-api-key": key}
    )
    assert response.status_code == 200, response.content
    job = response.json()
    assert job["totalLines"] == total
    assert [e["line"] for e in job["lineErrors"]] == [failed_line]


def test_the_command_line_takes_a_ragas_csv(tmp_path: Path, fake_engine: GroundingEngine) -> None:
    out = tmp_path / "out.jsonl"
    call_command("grounding_batch", str(DATA / "ragas_excel.csv"), str(out), "--local")
    results = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    assert [r["line"] for r in results] == [2, 4, 6, 7]
    assert [r["state"] for r in results] == ["done", "done", "done", "failed"]


def test_a_checked_trace_opens_as_a_review(make_user: Any, fake_engine: GroundingEngine) -> None:
    job = intake.create_job((DATA / "langfuse_traces.json").read_bytes(), send=False)
    _run(job)
    line = BatchLine.objects.get(job=job, number=2)
    review = line_reviews.review_for(make_user("reviewer"), line)
    assert review.answer == HEBREW_TRACE_ANSWER
    assert [fact["factText"] for fact in review.facts][1] == "בשבת הספרייה סגורה."


@pytest.mark.parametrize(
    "output",
    [
        {
            "content": {
                "content": {"content": {"content": {"content": {"content": {"content": "x"}}}}}
            }
        },
        [[[[[["deep"]]]]]],
        {"choices": [{"choices": [{"choices": []}]}]},
    ],
)
def test_a_trace_output_nested_deep_fails_alone(output: object) -> None:
    trace = {"id": "t", "sessionId": "s", "output": output, "input": {"contexts": ["c"]}}
    job = intake.create_job((json.dumps(trace) + "\n" + grounding_line(2)).encode(), send=False)
    first, second = _lines(job)
    assert first.state == "failed" and first.error.startswith("line 1 (Langfuse trace): output:")
    assert second.state == "pending"
