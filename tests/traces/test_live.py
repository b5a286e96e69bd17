"""The real OpenTelemetry SDK and its OTLP/HTTP exporter against the live server.

A small RAG function (retriever span + LLM span, attributes as OpenLLMetry and
OpenInference set them) runs under the SDK; its exporter sends to /otlp/v1/traces with
gzip and without, each span on its own (SimpleSpanProcessor: a trace arrives in three
exports, children first) or batched. The SDK's exporter speaks protobuf only, so the
JSON encoding is sent by hand: the same request the exporter builds, in OTLP/JSON.
Then the worker's sweep assembles the traces, the batch chunks run (fake engine), and
every answer is a checked line of the source's job whose claims cite the documents the
retriever returned; the batch pages show them.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Sequence
from typing import Any

import pytest
import requests
from django.contrib.auth.models import User
from django.test import Client
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.exporter.otlp.proto.http import Compression
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import (
    BatchSpanProcessor,
    SimpleSpanProcessor,
    SpanExporter,
    SpanExportResult,
)

from grounding_app.batch import running as batch_running
from grounding_app.batch.models import BatchChunk, BatchJob, BatchLine
from grounding_app.traces import services
from grounding_app.traces.models import TraceSource
from grounding_app.traces.snippets import snippets
from grounding_lab import rag_traces
from tests.traces.conftest import JSON, record, to_json

pytestmark = pytest.mark.django_db(transaction=True)


class Recording(SpanExporter):
    """The real exporter, noting each export's result (the processors only log them)."""

    def __init__(self, inner: OTLPSpanExporter) -> None:
        self.inner = inner
        self.results: list[SpanExportResult] = []

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        result = self.inner.export(spans)
        self.results.append(result)
        return result

    def shutdown(self) -> None:
        self.inner.shutdown()


def run_rag(provider: TracerProvider, numbers: range, convention: str) -> None:
    tracer = provider.get_tracer("tests.traces.live")
    for n in numbers:
        rag_traces.answer(tracer, n, convention)
    provider.force_flush()
    provider.shutdown()


def check_all() -> None:
    services.sweep(send=False)
    for chunk in BatchChunk.objects.filter(state=BatchChunk.State.QUEUED).order_by("pk"):
        batch_running.run_chunk(chunk.pk)


def assert_checked_with_citations(service: str, answers: int) -> BatchJob:
    source = TraceSource.objects.get(service_name=service)
    job = BatchJob.objects.get(pk=source.job_id)
    lines = list(BatchLine.objects.filter(job=job).order_by("number"))
    assert len(lines) == answers
    for line in lines:
        assert line.state == BatchLine.State.DONE, line.error
        raw = json.loads(line.raw)
        retrieved = {fact["attributes"]["document"] for fact in raw["facts"]}
        cited = {
            candidate["sources"][i]["metadata"]["document"]
            for candidate in line.result["candidates"]
            for segment in candidate["segments"]
            for i in segment["source_indices"]
        }
        assert cited and cited <= retrieved
    assert source.dropped == {}
    return job


@pytest.mark.parametrize("convention", rag_traces.CONVENTIONS)
@pytest.mark.parametrize("compression", [Compression.Gzip, Compression.NoCompression])
@pytest.mark.parametrize("processor", ["simple", "batch"])
def test_the_sdk_exporter_sends_answers_that_get_checked(
    live_server: Any,
    api_key: tuple[Any, str],
    fake_engine: object,
    convention: str,
    compression: Compression,
    processor: str,
) -> None:
    exporter = Recording(
        OTLPSpanExporter(
            endpoint=f"{live_server.url}/otlp/v1/traces",
            headers={"x-goog-api-key": api_key[1]},
            compression=compression,
        )
    )
    provider = TracerProvider(resource=Resource.create({"service.name": "rag-app"}))
    span_processor = SimpleSpanProcessor if processor == "simple" else BatchSpanProcessor
    provider.add_span_processor(span_processor(exporter))
    run_rag(provider, range(3), convention)
    assert exporter.results and set(exporter.results) == {SpanExportResult.SUCCESS}
    assert len(exporter.results) == (9 if processor == "simple" else 1)
    check_all()
    job = assert_checked_with_citations("rag-app", 3)
    assert TraceSource.objects.get().spans_received == 9
    # The third answer adds a sentence none of its documents supports.
    assert [line.unsupported_count for line in BatchLine.objects.filter(job=job)] == [0, 0, 1]


def test_the_connect_pages_python_settings_work_as_pasted(
    live_server: Any, api_key: tuple[Any, str], fake_engine: object
) -> None:
    code = snippets(f"{live_server.url}/otlp/v1/traces", api_key[1], "pasted-app").python
    namespace: dict[str, Any] = {}
    exec(code, namespace)  # the page's snippet, exactly as a team pastes it
    run_rag(namespace["provider"], range(2), rag_traces.OPENLLMETRY)
    check_all()
    assert_checked_with_citations("pasted-app", 2)


@pytest.mark.parametrize("gzipped", [True, False])
def test_otlp_json_gets_checked_too(
    live_server: Any, api_key: tuple[Any, str], fake_engine: object, gzipped: bool
) -> None:
    body = to_json(encode_spans(record(range(3), rag_traces.OPENINFERENCE, service="json-app")))
    headers = {"Content-Type": JSON, "x-goog-api-key": api_key[1]}
    if gzipped:
        body = gzip.compress(body)
        headers["Content-Encoding"] = "gzip"
    response = requests.post(f"{live_server.url}/otlp/v1/traces", data=body, headers=headers)
    assert response.status_code == 200 and response.json() == {}
    check_all()
    job = assert_checked_with_citations("json-app", 3)
    # The batch pages show the answers: the job's page lists them worst first.
    client = Client()
    client.force_login(User.objects.create_superuser("admin-live", password="pw-for-tests-only"))
    page = client.get(job.get_absolute_url()).content.decode()
    assert "bright green" in page and "Open review" in page


def test_malformed_and_oversized_exports_get_otlp_errors_from_the_live_server(
    live_server: Any, api_key: tuple[Any, str], settings: Any
) -> None:
    url = f"{live_server.url}/otlp/v1/traces"
    headers = {"Content-Type": "application/x-protobuf", "x-goog-api-key": api_key[1]}
    assert requests.post(url, data=b"\xff\xff", headers=headers).status_code == 400
    settings.MAX_REQUEST_BYTES = 100
    too_big = requests.post(url, data=b"\x00" * 1000, headers=headers)
    assert too_big.status_code == 413
    assert too_big.headers["Content-Type"] == "application/x-protobuf"
