"""Numbers past Python's 4,300-digit limit for int() on every import path (issue 32,
item 14): a JSON number or a numeric string of 5,000 digits is a clear error of its
record (its line, annotation or span) or of the one document that holds it, never a
500, and the records beside it are still read."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from grounding_app.api.models import ApiKey
from grounding_app.batch import running as batch_running
from grounding_app.batch.models import BatchChunk, BatchJob, BatchLine
from grounding_app.engine import GroundingEngine
from grounding_app.reviews.models import Review
from tests.annotations.conftest import grounding_line
from tests.security.conftest import World, signed_in

pytestmark = pytest.mark.django_db

DIGITS = "9" * 5000
CHECK = "/v1/projects/p/locations/global/groundingConfigs/default_grounding_config:check"
LONG = "a number of 5,000 digits; at most 4,300 are read"
FACT = {"factText": "Paris is the capital of France.", "attributes": {}}


def _long_label_line() -> str:
    return grounding_line(9, "Titanic was directed by James Cameron.").replace(
        '"label": 1', f'"label": {DIGITS}'
    )


@pytest.mark.parametrize(
    "body",
    [
        f'{{"answerCandidate": "Paris.", "facts": [], "citationThreshold": {DIGITS}}}',
        json.dumps({"answerCandidate": "Paris.", "facts": [FACT], "citationThreshold": DIGITS}),
    ],
)
def test_the_check_api_refuses_the_request(client: Client, body: str) -> None:
    key = ApiKey.issue("long numbers")[1]
    response = client.post(
        CHECK, body, content_type="application/json", headers={"x-goog-api-key": key}
    )
    assert response.status_code == 400


def test_a_batch_line_with_a_long_number_fails_alone(client: Client) -> None:
    key = ApiKey.issue("long numbers")[1]
    good = grounding_line(1, "Titanic was directed by James Cameron.")
    body = f"{good}\n{_long_label_line()}\n".encode()
    response = client.post(
        "/v1/batchJobs", body, content_type="application/x-ndjson", headers={"x-goog-api-key": key}
    )
    assert response.status_code < 300
    job = BatchJob.objects.get()
    states = dict(BatchLine.objects.filter(job=job).values_list("number", "state"))
    assert states[2] == BatchLine.State.FAILED and states[1] != BatchLine.State.FAILED
    assert LONG in BatchLine.objects.get(job=job, number=2).error


@pytest.mark.parametrize(
    "attribute",
    [
        {"intValue": DIGITS},
        {"doubleValue": DIGITS},
        {"intValue": int(DIGITS[:4000])},
        {"doubleValue": int(DIGITS[:4000])},  # past any double: OverflowError was a 500
    ],
)
def test_an_otlp_export_with_a_long_number_is_answered(
    client: Client, attribute: dict[str, Any]
) -> None:
    key = ApiKey.issue("long numbers")[1]
    span = {
        "traceId": "0af7651916cd43dd8448eb211c80319c",
        "spanId": "b7ad6b7169203331",
        "name": "chat",
        "startTimeUnixNano": DIGITS,
        "endTimeUnixNano": "2",
        "attributes": [{"key": "n", "value": attribute}],
    }
    body = json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]})
    response = client.post(
        "/otlp/v1/traces", body, content_type="application/json", headers={"x-goog-api-key": key}
    )
    assert response.status_code == 400


def test_the_review_import_names_the_number(world: World) -> None:
    payload = f'{{"answerCandidate": "Paris.", "facts": [], "citationThreshold": {DIGITS}}}'
    response = signed_in(world.lead)().post("/reviews/import/", {"payload": payload})
    assert response.status_code == 200 and LONG in response.content.decode()
    assert Review.objects.count() == 1  # the world's own


def test_the_items_import_names_the_line(world: World) -> None:
    body = grounding_line(1, "Titanic was directed by James Cameron.") + "\n" + _long_label_line()
    response = signed_in(world.lead)().post(
        f"/annotations/{world.project.pk}/import/", {"payload": body}
    )
    page = response.content.decode()
    assert response.status_code == 200 and "line 2" in page.casefold()
    assert LONG in page


def test_a_label_studio_export_with_a_long_number_is_refused_whole(world: World) -> None:
    export = f'[{{"id": {DIGITS}, "data": {{"answer": "a"}}, "annotations": []}}]'
    response = signed_in(world.lead)().post(
        f"/annotations/{world.project.pk}/label-studio/",
        {"file": SimpleUploadedFile("export.json", export.encode())},
    )
    assert response.status_code == 400 and LONG in response.content.decode()


@pytest.mark.parametrize(
    ("threshold", "status"),
    [(DIGITS, 400), ("1e" + DIGITS, 400), ("0." + DIGITS, 200)],  # 0.999… reads as 1.0
)
def test_a_long_batch_threshold_is_read_or_refused(
    client: Client, threshold: str, status: int
) -> None:
    key = ApiKey.issue("long numbers")[1]
    response = client.post(
        f"/v1/batchJobs?citationThreshold={threshold}",
        grounding_line(1, "Titanic was directed by James Cameron."),
        content_type="application/x-ndjson",
        headers={"x-goog-api-key": key},
    )
    assert response.status_code == status


def test_a_ragas_row_with_a_long_number_fails_alone(
    client: Client, fake_engine: GroundingEngine
) -> None:
    key = ApiKey.issue("long numbers")[1]
    rows = (
        "question,contexts,answer\n"
        "Where?,\"['Paris is in France.']\",Paris is in France.\n"
        f"Where?,[{DIGITS}],Paris is in France.\n"
    )
    response = client.post(
        "/v1/batchJobs", rows, content_type="text/csv", headers={"x-goog-api-key": key}
    )
    assert response.status_code < 300
    for chunk in BatchChunk.objects.values_list("pk", flat=True):
        batch_running.run_chunk(chunk)
    lines = {line.number: line for line in BatchLine.objects.all()}  # CSV line numbers
    assert lines[2].state == BatchLine.State.DONE
    assert lines[3].state == BatchLine.State.FAILED and "not a list" in lines[3].error
