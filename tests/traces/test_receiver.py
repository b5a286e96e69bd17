"""The OTLP/HTTP endpoint: its answers (OTLP's own, in the request's encoding), what it
stores, and assembly into the source's rolling batch job."""

from __future__ import annotations

import gzip
import json
import zlib
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client, override_settings
from django.utils import timezone
from google.rpc import code_pb2, status_pb2
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from grounding_app.batch import running as batch_running
from grounding_app.batch.models import BatchChunk, BatchJob, BatchLine
from grounding_app.traces import services
from grounding_app.traces.assemble import NO_ANSWER
from grounding_app.traces.models import PendingSpan, PendingTrace, TraceSource
from grounding_app.traces.receiver import INVALID_ID, LATE
from grounding_lab.rag_traces import OPENINFERENCE, OPENLLMETRY
from tests.traces.conftest import JSON, PROTOBUF, encode, one_span_traces, record

pytestmark = pytest.mark.django_db


def status_of(response: Any) -> status_pb2.Status:
    status = status_pb2.Status()
    if response["Content-Type"] == JSON:
        data = json.loads(response.content)
        status.code, status.message = data.get("code", 0), data.get("message", "")
    else:
        status.ParseFromString(response.content)
    return status


def run_all_chunks() -> None:
    for chunk in BatchChunk.objects.filter(state=BatchChunk.State.QUEUED).order_by("pk"):
        batch_running.run_chunk(chunk.pk)


@pytest.mark.parametrize("content_type", [PROTOBUF, JSON])
def test_an_export_is_stored_and_answered_with_an_empty_success(
    post_export: Any, content_type: str
) -> None:
    spans = record([0, 1], OPENLLMETRY)
    response = post_export(encode(spans, content_type), content_type)
    assert response.status_code == 200
    assert response["Content-Type"] == content_type
    if content_type == PROTOBUF:
        parsed = ExportTraceServiceResponse()
        parsed.ParseFromString(response.content)
        assert not parsed.HasField("partial_success")
    else:
        assert json.loads(response.content) == {}
    source = TraceSource.objects.get()
    assert (source.service_name, source.spans_received) == ("rag-app", 6)
    assert PendingSpan.objects.count() == 6
    assert set(PendingTrace.objects.values_list("has_root", "has_answer")) == {(True, True)}


@pytest.mark.parametrize("coding", ["gzip", "deflate"])
def test_compressed_exports_are_read(post_export: Any, coding: str) -> None:
    body = encode(record([0], OPENINFERENCE))
    packed = gzip.compress(body) if coding == "gzip" else zlib.compress(body)
    response = post_export(packed, HTTP_CONTENT_ENCODING=coding)
    assert response.status_code == 200
    assert PendingSpan.objects.count() == 3


def test_assembled_traces_become_checked_lines_with_citations(
    post_export: Any, fake_engine: object
) -> None:
    post_export(encode(record([0, 1, 2], OPENLLMETRY)))
    post_export(encode(record([3, 4, 5], OPENINFERENCE), JSON), JSON)
    assert services.sweep(send=False) == 6
    run_all_chunks()
    source = TraceSource.objects.get()
    job = BatchJob.objects.get(pk=source.job_id)
    assert (job.total, job.status) == (6, BatchJob.Status.DONE)
    lines = list(BatchLine.objects.filter(job=job).order_by("number"))
    assert [line.state for line in lines] == [BatchLine.State.DONE] * 6
    for line in lines:
        raw = json.loads(line.raw)
        assert raw["meta"]["question"].startswith("Tell me about")
        documents = [fact["attributes"]["document"] for fact in raw["facts"]]
        cited = {
            candidate["sources"][i]["metadata"].get("document")
            for candidate in line.result["candidates"]
            for segment in candidate["segments"]
            for i in segment["source_indices"]
        }
        assert cited and cited <= set(documents), f"line {line.number}: {cited}"
    # The third question's answer adds a sentence no document supports.
    assert lines[2].unsupported_count == 1 and lines[0].unsupported_count == 0
    assert source.traces_checked == 6 and PendingSpan.objects.count() == 0
    assert source.unknown_attributes == {"acme.prompt_version": 6}


def test_a_trace_split_over_exports_waits_for_its_root(post_export: Any) -> None:
    spans = record([0], OPENINFERENCE)
    children = [s for s in spans if s.parent is not None]
    root = [s for s in spans if s.parent is None]
    post_export(encode(children))
    assert services.assemble_due(send=False) == 0  # the answer is there, the root not
    post_export(encode(root))
    assert services.assemble_due(send=False) == 1
    line = BatchLine.objects.get()
    assert len(json.loads(line.raw)["facts"]) == 3


def test_a_trace_without_its_root_is_checked_after_the_quiet_wait(post_export: Any) -> None:
    spans = [s for s in record([0], OPENLLMETRY) if s.parent is not None]
    post_export(encode(spans))
    assert services.assemble_due(send=False) == 0
    later = timezone.now() + timedelta(seconds=11)
    assert services.assemble_due(now=later, send=False) == 1
    assert BatchLine.objects.count() == 1


def test_spans_of_no_rag_answer_are_counted_and_dropped(post_export: Any) -> None:
    spans = [s for s in record([0], OPENLLMETRY) if "chat" not in s.name]
    post_export(encode(spans))
    later = timezone.now() + timedelta(seconds=11)
    assert services.assemble_due(now=later, send=False) == 1
    source = TraceSource.objects.get()
    assert source.dropped == {NO_ANSWER: 2}
    assert BatchLine.objects.count() == 0 and PendingSpan.objects.count() == 0


def test_late_spans_are_rejected_in_a_partial_success(post_export: Any) -> None:
    spans = record([0], OPENLLMETRY)
    post_export(encode(spans))
    services.assemble_due(send=False)
    response = post_export(encode(spans))
    parsed = ExportTraceServiceResponse()
    parsed.ParseFromString(response.content)
    assert response.status_code == 200
    assert parsed.partial_success.rejected_spans == 3
    assert LATE in parsed.partial_success.error_message
    assert TraceSource.objects.get().dropped == {LATE: 3}
    assert BatchLine.objects.count() == 1


def test_spans_with_invalid_ids_are_rejected_and_the_others_kept(post_export: Any) -> None:
    request = ExportTraceServiceRequest()
    request.ParseFromString(encode(record([0], OPENLLMETRY)))
    request.resource_spans[0].scope_spans[0].spans[0].trace_id = b"\x00" * 16
    response = post_export(request.SerializeToString())
    parsed = ExportTraceServiceResponse()
    parsed.ParseFromString(response.content)
    assert parsed.partial_success.rejected_spans == 1
    assert PendingSpan.objects.count() == 2
    assert TraceSource.objects.get().dropped == {INVALID_ID: 1}


@pytest.mark.parametrize("content_type", [PROTOBUF, JSON])
def test_malformed_exports_get_a_400_status_and_lose_nothing_else(
    post_export: Any, content_type: str
) -> None:
    post_export(encode(record([0], OPENLLMETRY), content_type), content_type)
    bad = b"\xff\x00not a message" if content_type == PROTOBUF else b'{"resourceSpans": [1, '
    response = post_export(bad, content_type)
    assert response.status_code == 400
    assert response["Content-Type"] == content_type
    assert status_of(response).code == code_pb2.INVALID_ARGUMENT
    post_export(encode(record([1], OPENLLMETRY), content_type), content_type)
    assert PendingSpan.objects.count() == 6
    assert services.assemble_due(send=False) == 2


def test_bad_hex_ids_in_json_are_malformed(post_export: Any) -> None:
    body = json.loads(encode(record([0], OPENLLMETRY), JSON))
    body["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["traceId"] = "not-hex"
    response = post_export(json.dumps(body).encode(), JSON)
    assert response.status_code == 400
    assert "traceId" in status_of(response).message


def test_a_broken_gzip_stream_is_malformed(post_export: Any) -> None:
    packed = gzip.compress(encode(record([0], OPENLLMETRY)))
    response = post_export(packed[: len(packed) // 2], HTTP_CONTENT_ENCODING="gzip")
    assert response.status_code == 400


def test_oversized_exports_get_413_and_lose_nothing_else(post_export: Any) -> None:
    body = encode(record([0], OPENLLMETRY))
    with override_settings(MAX_REQUEST_BYTES=len(body) - 1):
        response = post_export(body)
    assert response.status_code == 413
    assert status_of(response).code == code_pb2.RESOURCE_EXHAUSTED
    # A small gzip body that expands past the limit (a zip bomb) is refused too.
    with override_settings(TRACES_MAX_EXPORT_BYTES=1000):
        bomb = gzip.compress(b"\x00" * 100_000)
        response = post_export(bomb, HTTP_CONTENT_ENCODING="gzip")
    assert response.status_code == 413
    assert post_export(body).status_code == 200
    assert PendingSpan.objects.count() == 3


def test_unsupported_content_type_is_415(post_export: Any) -> None:
    response = post_export(b"hello", "text/plain")
    assert response.status_code == 415
    assert status_of(response).code == code_pb2.INVALID_ARGUMENT


def test_a_missing_or_wrong_key_is_401(client: Any, api_key: Any) -> None:
    body = encode(record([0], OPENLLMETRY))
    response = client.post("/otlp/v1/traces", body, content_type=PROTOBUF)
    assert response.status_code == 401
    assert status_of(response).code == code_pb2.UNAUTHENTICATED
    response = client.post(
        "/otlp/v1/traces", body, content_type=PROTOBUF, HTTP_X_GOOG_API_KEY="gwk_wrong"
    )
    assert response.status_code == 401
    response = client.post(
        "/otlp/v1/traces", body, content_type=PROTOBUF, HTTP_AUTHORIZATION=f"Bearer {api_key[1]}"
    )
    assert response.status_code == 200


def test_get_is_405(post_export: Any, client: Any) -> None:
    response = client.get("/otlp/v1/traces")
    assert response.status_code == 405 and response["Allow"] == "POST"


def test_over_the_rate_limit_is_429_with_retry_after(post_export: Any) -> None:
    body = encode(record([0], OPENLLMETRY))
    with override_settings(API_RATE_LIMIT=1):
        assert post_export(body).status_code == 200
        response = post_export(body)
    assert response.status_code == 429
    assert int(response["Retry-After"]) > 0


def test_a_backlog_is_429_with_retry_after(post_export: Any) -> None:
    with override_settings(TRACES_MAX_OPEN_TRACES=1):
        assert post_export(encode(record([0], OPENLLMETRY))).status_code == 200
        response = post_export(encode(record([1], OPENLLMETRY)))
    assert response.status_code == 429 and response["Retry-After"]
    assert PendingTrace.objects.count() == 1


def test_a_locked_database_is_503_with_retry_after(
    post_export: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from django.db.utils import OperationalError

    def locked(*args: object, **kwargs: object) -> None:
        raise OperationalError("database is locked")

    monkeypatch.setattr("grounding_app.traces.receiver.receive", locked)
    response = post_export(encode(record([0], OPENLLMETRY)))
    assert response.status_code == 503 and response["Retry-After"]
    assert status_of(response).code == code_pb2.UNAVAILABLE


def test_a_retried_export_stores_each_span_once(post_export: Any) -> None:
    body = encode(record([0], OPENLLMETRY))
    post_export(body)
    post_export(body)
    assert PendingSpan.objects.count() == 3


def test_each_source_has_its_rolling_job_per_day(post_export: Any) -> None:
    post_export(encode(record([0], OPENLLMETRY, service="a")))
    post_export(encode(record([1], OPENLLMETRY, service="b")))
    services.assemble_due(send=False)
    post_export(encode(record([2], OPENLLMETRY, service="a")))
    services.assemble_due(send=False)
    a, b = TraceSource.objects.order_by("service_name")
    assert a.job_id != b.job_id
    assert BatchJob.objects.get(pk=a.job_id).total == 2
    # Tomorrow, a new job.
    post_export(encode(record([3], OPENLLMETRY, service="a")))
    services.assemble_due(now=timezone.now() + timedelta(days=1), send=False)
    a.refresh_from_db()
    assert BatchJob.objects.get(pk=a.job_id).total == 1
    assert a.jobs.count() == 2


def test_a_cancelled_rolling_job_is_replaced(post_export: Any) -> None:
    post_export(encode(record([0], OPENLLMETRY)))
    services.assemble_due(send=False)
    first = BatchJob.objects.get()
    batch_running.cancel(first)
    post_export(encode(record([1], OPENLLMETRY)))
    services.assemble_due(send=False)
    source = TraceSource.objects.get()
    assert source.job_id != first.pk
    assert BatchJob.objects.get(pk=source.job_id).total == 1


def test_a_job_closed_while_lines_came_is_resumed(post_export: Any, fake_engine: object) -> None:
    post_export(encode(record([0], OPENLLMETRY)))
    services.assemble_due(send=False)
    job = BatchJob.objects.get()
    # A worker finished the last chunk just as a new one was committed.
    BatchJob.objects.filter(pk=job.pk).update(status=BatchJob.Status.DONE)
    assert services.sweep(send=False) == 0
    job.refresh_from_db()
    assert job.status == BatchJob.Status.RUNNING
    run_all_chunks()
    job.refresh_from_db()
    assert job.status == BatchJob.Status.DONE
    assert BatchLine.objects.get().state == BatchLine.State.DONE


def test_receiving_never_checks(post_export: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    def engine_runs(*args: object) -> None:
        raise AssertionError("receiving ran the engine")

    monkeypatch.setattr("grounding_app.active_verifier.checker.Checker.check", engine_runs)
    monkeypatch.setattr("grounding_app.traces.services.assemble_due", engine_runs)
    assert post_export(encode(record([0, 1], OPENLLMETRY))).status_code == 200
    assert BatchLine.objects.count() == 0 and PendingSpan.objects.count() == 6


def test_a_hebrew_answer_is_checked_and_marked_word_matched(
    post_export: Any, fake_engine: object
) -> None:
    memory = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "he-app"}))
    provider.add_span_processor(SimpleSpanProcessor(memory))
    tracer = provider.get_tracer("he")
    fact = "מגדל אייפל הושלם בשנת 1889 לקראת התערוכה העולמית בפריז."
    with tracer.start_as_current_span("rag"):
        with tracer.start_as_current_span("retrieve") as span:
            span.set_attribute("openinference.span.kind", "RETRIEVER")
            span.set_attribute("retrieval.documents.0.document.content", fact)
            span.set_attribute("retrieval.documents.0.document.id", "he-1")
        with tracer.start_as_current_span("llm") as span:
            span.set_attribute("openinference.span.kind", "LLM")
            span.set_attribute("input.value", "מתי הושלם מגדל אייפל?")
            span.set_attribute("output.value", fact)
    provider.shutdown()
    post_export(encode(memory.get_finished_spans()))
    services.sweep(send=False)
    run_all_chunks()
    line = BatchLine.objects.get()
    assert line.state == BatchLine.State.DONE
    assert line.judged_by == {"word_matching": {"he": 1}}


def _spans_with_keys(keys: list[str], first: int) -> bytes:
    request = one_span_traces(len(keys), first=first)
    for span, key in zip(request.resource_spans[0].scope_spans[0].spans, keys, strict=True):
        for name, value in (
            ("openinference.span.kind", "LLM"),
            ("output.value", "Yes."),
            ("acme.shared", "s"),
            (key, "v"),
        ):
            attribute = span.attributes.add()
            attribute.key, attribute.value.string_value = name, value
    return request.SerializeToString()


@override_settings(TRACES_MAX_UNKNOWN_KEYS=5)
def test_unknown_keys_past_the_cap_are_only_counted(
    post_export: Any, make_user: Callable[..., Any]
) -> None:
    """Issue 32, item 14: one export stored 100,000 unknown keys for its source."""
    letters = "abcdefghijkl"
    assert post_export(_spans_with_keys([f"acme.{c}" for c in letters], 1)).status_code == 200
    services.sweep(send=False)
    source = TraceSource.objects.get()
    assert len(source.unknown_attributes) == 5
    assert source.unknown_attributes["acme.shared"] == 12
    assert source.unknown_not_kept == 12 - 4
    kept = set(source.unknown_attributes) - {"acme.shared"}
    again = [next(iter(kept)), "acme.new"]
    assert post_export(_spans_with_keys(again, 100)).status_code == 200
    services.sweep(send=False)
    source.refresh_from_db()
    assert len(source.unknown_attributes) == 5 and "acme.new" not in source.unknown_attributes
    assert source.unknown_attributes["acme.shared"] == 14
    assert source.unknown_attributes[again[0]] == 2
    assert source.unknown_not_kept == 8 + 1
    reviewer = Client()
    reviewer.force_login(make_user("reviewer"))
    page = reviewer.get(f"/traces/sources/{source.pk}/").content.decode()
    assert "9 more spans' keys not kept: past 5 distinct keys" in page
