"""Trace fixtures: spans made by the real OpenTelemetry SDK, encoded as its exporter
encodes them, and OTLP's JSON encoding of the same request (hex ids, lowerCamelCase)."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from google.protobuf import json_format
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from grounding_lab import rag_traces

# The browser tests' fixtures, for test_screenshots.py.
from tests.browser.conftest import browser, open_session  # noqa: F401

PROTOBUF = "application/x-protobuf"
JSON = "application/json"


def record(numbers: Sequence[int], convention: str, service: str = "rag-app") -> list[ReadableSpan]:
    """The spans of the instrumented RAG function answering each question number."""
    memory = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": service}))
    provider.add_span_processor(SimpleSpanProcessor(memory))
    tracer = provider.get_tracer("tests.traces")
    for n in numbers:
        rag_traces.answer(tracer, n, convention)
    provider.shutdown()
    return list(memory.get_finished_spans())


def to_json(request: ExportTraceServiceRequest) -> bytes:
    """OTLP/JSON: protobuf's JSON mapping with trace and span ids as hex, not base64."""
    data = json_format.MessageToDict(request)
    for resource in data.get("resourceSpans", []):
        for scope in resource.get("scopeSpans", []):
            for span in scope.get("spans", []):
                for key in ("traceId", "spanId", "parentSpanId"):
                    if key in span:
                        span[key] = base64.b64decode(span[key]).hex()
    return json.dumps(data).encode()


def encode(spans: Sequence[ReadableSpan], content_type: str = PROTOBUF) -> bytes:
    request = encode_spans(spans)
    return to_json(request) if content_type == JSON else request.SerializeToString()


@pytest.fixture
def api_key(db: None) -> tuple[Any, str]:
    from grounding_app.api.models import ApiKey

    return ApiKey.issue("traces test")


@pytest.fixture
def post_export(client: Any, api_key: tuple[Any, str]) -> Callable[..., Any]:
    """POST a body to /otlp/v1/traces with the key, as an exporter does."""

    def post(body: bytes, content_type: str = PROTOBUF, **headers: str) -> Any:
        extra = {"HTTP_X_GOOG_API_KEY": api_key[1], **headers}
        return client.post("/otlp/v1/traces", body, content_type=content_type, **extra)

    return post


def one_span_traces(count: int, service: str = "bulk", first: int = 1) -> ExportTraceServiceRequest:
    """An export of `count` traces of one root span each (a load test's shape: the most
    rows per byte), ids numbered from `first`."""
    request = ExportTraceServiceRequest()
    resource = request.resource_spans.add()
    name = resource.resource.attributes.add()
    name.key, name.value.string_value = "service.name", service
    scope = resource.scope_spans.add()
    for n in range(first, first + count):
        span = scope.spans.add()
        span.trace_id, span.span_id = n.to_bytes(16, "big"), n.to_bytes(8, "big")
        span.name, span.start_time_unix_nano, span.end_time_unix_nano = "step", 1, 2
        attribute = span.attributes.add()
        attribute.key, attribute.value.string_value = "input.value", f"question {n}"
    return request
