"""One export is bounded work, and no one span costs the others their place (issue 32,
items 10 and 11): spans past TRACES_MAX_EXPORT_SPANS are refused in a partial success,
rows go in a few statements whatever their number, and text PostgreSQL cannot store (a
NUL) or a double JSON cannot hold (NaN) is replaced in the span that has it."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse

from grounding_app.traces.models import PendingSpan, PendingTrace, TraceSource
from grounding_app.traces.otlp import NUL_REPLACEMENT, OVER_EXPORT_LIMIT
from grounding_app.traces.receiver import OVER_NEW_SOURCES, OVER_SERVICES
from tests.traces.conftest import JSON, PROTOBUF, one_span_traces, to_json

pytestmark = pytest.mark.django_db


def partial_success(response: Any) -> tuple[int, str]:
    if response["Content-Type"] == JSON:
        found = json.loads(response.content).get("partialSuccess", {})
        return int(found.get("rejectedSpans", 0)), found.get("errorMessage", "")
    parsed = ExportTraceServiceResponse()
    parsed.ParseFromString(response.content)
    return parsed.partial_success.rejected_spans, parsed.partial_success.error_message


@pytest.mark.parametrize("content_type", [PROTOBUF, JSON])
def test_spans_past_the_export_limit_are_refused_in_a_partial_success(
    post_export: Any, content_type: str
) -> None:
    request = one_span_traces(7)
    request.resource_spans.add().CopyFrom(one_span_traces(5, "second", first=100).resource_spans[0])
    body = to_json(request) if content_type == JSON else request.SerializeToString()
    with override_settings(TRACES_MAX_EXPORT_SPANS=9):
        response = post_export(body, content_type)
    assert response.status_code == 200
    assert partial_success(response) == (3, f"3 span(s): {OVER_EXPORT_LIMIT}")
    assert PendingSpan.objects.count() == 9
    # The first spans are kept, in the export's order: all of "bulk", two of "second".
    kept = dict(TraceSource.objects.values_list("service_name", "spans_received"))
    assert kept == {"bulk": 7, "second": 2}


def test_storing_takes_a_few_statements_however_many_spans(post_export: Any) -> None:
    body = one_span_traces(3_000).SerializeToString()
    with CaptureQueriesContext(connection) as first:
        assert post_export(body).status_code == 200
    # The same export again (an exporter's retry): every trace exists, one UPDATE.
    with CaptureQueriesContext(connection) as retried:
        assert post_export(body).status_code == 200
    assert len(first.captured_queries) < 30, len(first.captured_queries)
    assert len(retried.captured_queries) < 30, len(retried.captured_queries)
    assert PendingSpan.objects.count() == 3_000
    assert PendingTrace.objects.filter(has_root=True).count() == 3_000


def _with_nul(content_type: str) -> bytes:
    """Three one-span traces; the second holds a NUL in its name, an attribute key and
    value and an event; the third's resource names a service with a NUL."""
    request = one_span_traces(2)
    span = request.resource_spans[0].scope_spans[0].spans[1]
    span.name = "re\x00trieve"
    attribute = span.attributes.add()
    attribute.key, attribute.value.string_value = "odd\x00key", "a\x00b"
    double = span.attributes.add()
    double.key, double.value.double_value = "score", float("nan")
    event = span.events.add()
    event.name = "gen_ai.choice\x00"
    request.resource_spans.add().CopyFrom(
        one_span_traces(1, "svc\x00name", first=3).resource_spans[0]
    )
    return to_json(request) if content_type == JSON else request.SerializeToString()


@pytest.mark.parametrize("content_type", [PROTOBUF, JSON])
def test_a_nul_is_replaced_in_its_span_and_loses_nothing(
    post_export: Any, content_type: str
) -> None:
    response = post_export(_with_nul(content_type), content_type)
    assert response.status_code == 200
    assert partial_success(response) == (0, "")
    assert PendingSpan.objects.count() == 3
    data = PendingSpan.objects.get(span_id=(2).to_bytes(8, "big").hex()).data
    assert data["name"] == f"re{NUL_REPLACEMENT}trieve"
    assert data["attributes"][f"odd{NUL_REPLACEMENT}key"] == f"a{NUL_REPLACEMENT}b"
    assert data["attributes"]["score"] == "nan"
    assert data["events"][0]["name"] == f"gen_ai.choice{NUL_REPLACEMENT}"
    assert TraceSource.objects.filter(service_name=f"svc{NUL_REPLACEMENT}name").exists()


def services_export(count: int, first: int = 1) -> bytes:
    """An export of `count` resources, each its own service.name and one span."""
    request = one_span_traces(1, "svc-0", first=first)
    for n in range(1, count):
        one = one_span_traces(1, f"svc-{n}", first=first + n)
        request.resource_spans.add().CopyFrom(one.resource_spans[0])
    return request.SerializeToString()


def test_an_export_creates_few_sources_and_refuses_the_rest(post_export: Any) -> None:
    """Issue 44 item 6: one export naming a service per resource stored every one of
    them (2,000 sources, 20 s); now at most TRACES_MAX_NEW_SOURCES are created."""
    with CaptureQueriesContext(connection) as queries:
        response = post_export(services_export(300))
    assert response.status_code == 200
    assert len(queries.captured_queries) < 200, len(queries.captured_queries)
    assert TraceSource.objects.count() == 10
    rejected, message = partial_success(response)
    assert rejected == 290
    assert message == f"290 span(s): {OVER_NEW_SOURCES}"


def test_known_services_are_stored_up_to_the_services_per_export(post_export: Any) -> None:
    with override_settings(TRACES_MAX_NEW_SOURCES=100):
        assert post_export(services_export(8)).status_code == 200
    with override_settings(TRACES_MAX_EXPORT_SERVICES=5, TRACES_MAX_NEW_SOURCES=1):
        response = post_export(services_export(9, first=100))
    # svc-0..4 are known and stored; svc-5..8 are past the five services.
    assert partial_success(response) == (4, f"4 span(s): {OVER_SERVICES}")
    assert TraceSource.objects.count() == 8
    assert PendingSpan.objects.count() == 8 + 5
