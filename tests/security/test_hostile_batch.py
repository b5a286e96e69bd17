"""Hostile JSONL lines in a batch upload, through the page's form and the API: each
line is failed with its own error (the rest of the job still runs) or the upload is
refused as a whole, never a 500; and a job holding such lines still runs, shows its
results page and exports. The same lines go to the review import and a labeling
project's item import.

On PostgreSQL a text column refuses NUL, and jsonb the \\u0000 escape as well: one such
line must not lose the upload (issue 25, item 16)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from grounding_app.annotations.allocation import next_assignment
from grounding_app.annotations.items import create_project
from grounding_app.api.models import ApiKey
from grounding_app.batch import running
from grounding_app.batch.models import BatchChunk, BatchJob, BatchLine
from grounding_app.engine import GroundingEngine
from tests.batch.conftest import grounding_line

pytestmark = pytest.mark.django_db

FACT = {"text": "Paris is the capital of France.", "attributes": {"author": "Atlas"}}


def _line(**fields: Any) -> bytes:
    data = {"id": "h", "claim": "Paris is the capital of France.", "facts": [FACT], **fields}
    return json.dumps(data).encode()


def _gemini(start: int, end: int) -> bytes:
    text = "Paris is the capital of France."
    return json.dumps(
        {
            "candidates": [
                {
                    "content": {"parts": [{"text": text}]},
                    "groundingMetadata": {
                        "groundingChunks": [{"web": {"uri": "https://a.org", "title": "A"}}],
                        "groundingSupports": [
                            {
                                "segment": {"startIndex": start, "endIndex": end},
                                "groundingChunkIndices": [0],
                            }
                        ],
                    },
                }
            ]
        }
    ).encode()


NUL = "\x00"
SURROGATE = "\ud800"
HOSTILE_LINES: dict[str, bytes] = {
    "raw NUL byte": b'{"id": "a\x00", "claim": "x", "facts": []}',
    "NUL escape in the claim": _line(claim=f"Paris{NUL} is the capital."),
    "NUL escape in a fact": _line(facts=[{"text": f"Paris{NUL}", "attributes": {}}]),
    "NUL escape in an attribute": _line(facts=[{"text": "P", "attributes": {f"k{NUL}": NUL}}]),
    "NUL escape in the id": _line(id=NUL),
    "NUL escape in the source": _line(source=f"wiki{NUL}"),
    "NUL escape in meta": _line(meta={f"model{NUL}": f"m{NUL}1"}),
    "NUL escape in a label": _line(label=NUL),
    "lone surrogate escape in the claim": _line(claim=f"Paris{SURROGATE}"),
    "lone surrogate escape in a fact": _line(facts=[{"text": SURROGATE, "attributes": {}}]),
    "lone surrogate escape in the id": _line(id=SURROGATE),
    "lone surrogate escape in meta": _line(meta={SURROGATE: SURROGATE}),
    "lone surrogate bytes": b'{"id": "\xed\xa0\x80", "claim": "x", "facts": []}',
    "not UTF-8": b'{"id": "\xff\xfe", "claim": "x"}',
    "a huge label": _line(label=10**30),
    "an infinite label": b'{"id": "h", "claim": "x", "facts": [], "label": 1e309}',
    "a number past 4,300 digits": b'{"id": "h", "claim": "x", "label": 1' + b"0" * 5_000 + b"}",
    "NaN": b'{"id": "h", "claim": "x", "facts": [], "label": NaN}',
    "deeply nested objects": b'{"a": ' * 100_000 + b"1" + b"}" * 100_000,
    "deeply nested lists": b"[" * 100_000 + b"]" * 100_000,
    "a 10 MB line": b'{"id": "h", "claim": "' + b"x" * 10_000_000 + b'"}',
    "the claim a number": _line(claim=5),
    "the facts a string": _line(facts="Paris"),
    "a fact a number": _line(facts=[5]),
    "attributes a list": _line(facts=[{"text": "P", "attributes": [1]}]),
    "the id an object": _line(id={"a": 1}),
    "meta a list": _line(meta=[1, 2]),
    "meta nested": _line(meta={"a": {"b": [1]}, "c": None, "d": 1e300}),
    "a label object": _line(label={"x": 1}),
    "a JSON string": b'"just a string"',
    "a JSON list": b"[1, 2, 3]",
    "null": b"null",
    "a BOM": b"\xef\xbb\xbf" + _line(),
    "two BOMs": b"\xef\xbb\xbf\xef\xbb\xbf" + _line(),
    "a CRLF end": _line() + b"\r",
    "a lone CR inside": _line() + b"\r" + _line(id="i"),
    "out-of-range Gemini offsets": _gemini(5, 10**6),
    "negative Gemini offsets": _gemini(-5, -1),
    "huge Gemini offsets": _gemini(10**30, 10**31),
    "a Gemini line and meta": _gemini(0, 5)[:-1] + b', "meta": {"model": "m"}}',
}


@pytest.fixture
def upload(
    fake_engine: GroundingEngine, make_user: Callable[..., Any], settings: Any
) -> Callable[[bytes], int]:
    """Send the file through the page's form, then through the API; gives the worse
    status of the two after checking that what was made still works."""
    settings.API_RATE_LIMIT = 0
    settings.BATCH_KEY_WAITING_LINES = 0
    page = Client(raise_request_exception=False)
    page.force_login(make_user("reviewer"))
    api = Client(raise_request_exception=False)
    key = ApiKey.issue("hostile")[1]

    def send(data: bytes) -> int:
        before = set(BatchJob.objects.values_list("pk", flat=True))
        form = page.post(
            reverse("batch:jobs"),
            {"file": SimpleUploadedFile("h.jsonl", data), "citation_threshold": "0.6"},
        )
        answer = api.post(
            "/v1/batchJobs", data, "application/x-ndjson", headers={"x-goog-api-key": key}
        )
        for job in BatchJob.objects.exclude(pk__in=before):
            _runs_and_shows(page, job)
        return max(form.status_code, answer.status_code)

    return send


def _runs_and_shows(page: Client, job: BatchJob) -> None:
    """Every line is checked or failed with a reason; the results page and the
    downloads still answer."""
    for chunk_id in BatchChunk.objects.filter(job=job).values_list("pk", flat=True):
        running.run_chunk(chunk_id)
    for line in BatchLine.objects.filter(job=job):
        assert line.state in (BatchLine.State.DONE, BatchLine.State.FAILED), line.number
        if line.state == BatchLine.State.FAILED:
            assert line.error, line.number
    for name in ("batch:detail", "batch:export_jsonl", "batch:export_csv"):
        response = page.get(reverse(name, args=[job.public_id]))
        assert response.status_code == 200, (name, response.status_code)
        if response.streaming:
            b"".join(response.streaming_content)  # type: ignore[attr-defined]


@pytest.mark.parametrize("what", HOSTILE_LINES)
def test_a_hostile_line_is_failed_or_refused(upload: Callable[[bytes], int], what: str) -> None:
    valid = grounding_line(1).encode()
    assert upload(valid + b"\n" + HOSTILE_LINES[what] + b"\n") < 500


def test_every_hostile_line_in_one_file(upload: Callable[[bytes], int]) -> None:
    """Lines of different formats and metadata side by side (issue 25, item 11)."""
    small = [line for line in HOSTILE_LINES.values() if len(line) < 100_000]
    assert upload(b"\r\n".join([grounding_line(1).encode(), *small])) < 500


@pytest.fixture
def imports(
    fake_engine: GroundingEngine, make_user: Callable[..., Any]
) -> Callable[[bytes], list[int]]:
    """Send the file to the review import and to a labeling project's item import;
    gives their statuses, and those of the pages they lead to."""
    lead = make_user("reviewer")
    client = Client(raise_request_exception=False)
    client.force_login(lead)
    project = create_project(lead, name="Films", annotators=[lead])

    def send(data: bytes) -> list[int]:
        statuses = []
        for url in (
            reverse("reviews:import"),
            reverse("annotations:import_items", args=[project.pk]),
        ):
            response = client.post(url, {"file": SimpleUploadedFile("h.jsonl", data)})
            statuses.append(response.status_code)
            if response.status_code == 302:
                statuses.append(client.get(response["Location"]).status_code)
        assignment = next_assignment(project, lead)
        if assignment is not None:
            statuses.append(client.get(assignment.get_absolute_url()).status_code)
        return statuses

    return send


@pytest.mark.parametrize("what", HOSTILE_LINES)
def test_a_hostile_line_in_the_imports(imports: Callable[[bytes], list[int]], what: str) -> None:
    """The same lines, alone, as a review import and as labeling items."""
    statuses = imports(HOSTILE_LINES[what])
    assert max(statuses) < 500, statuses
