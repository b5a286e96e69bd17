"""The Connect page and a source fed by traces, in the browser (slow: `-m slow`).

Writes docs/img/connect-{light,dark}.png, docs/img/trace-source-{light,dark}.png and
docs/img/trace-job-light.png (the source's rolling job: its answers worst first). The
source is fed by the real SDK exporter against the live server; its answers are
checked with the fast fake engine, so the verdicts are the fake's.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone
from opentelemetry.exporter.otlp.proto.http import Compression
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

from grounding_app.api.models import ApiKey
from grounding_app.batch import running as batch_running
from grounding_app.batch.models import BatchChunk
from grounding_app.traces import services
from grounding_app.traces.models import TraceSource
from grounding_lab import rag_traces
from tests.browser.conftest import Session

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

IMG = Path(__file__).resolve().parents[2] / "docs" / "img"


def shoot(session: Session, name: str, schemes: tuple[str, ...] = ("light", "dark")) -> None:
    IMG.mkdir(exist_ok=True)
    for scheme in schemes:
        session.page.emulate_media(color_scheme=scheme)
        session.page.screenshot(path=str(IMG / f"{name}-{scheme}.png"), full_page=True)


def test_connect_page_copies_its_settings(open_session: Callable[..., Session]) -> None:
    session = open_session(role="admin")
    session.page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    session.goto("/traces/connect/")
    button = session.page.locator('button[data-copy-from="env"]')
    button.click()
    assert button.inner_text() == "Copied"
    copied = session.page.evaluate("() => navigator.clipboard.readText()")
    assert copied.startswith("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=" + session.base)
    assert "OTEL_EXPORTER_OTLP_TRACES_HEADERS=x-goog-api-key=YOUR_API_KEY" in copied
    session.page.mouse.move(0, 0)
    session.page.wait_for_timeout(1600)  # the button says "Copy" again
    shoot(session, "connect")
    session.no_xss()


def test_connect_page_without_javascript_has_no_dead_buttons(
    open_session: Callable[..., Session],
) -> None:
    session = open_session(javascript=False)
    session.goto("/traces/connect/")
    assert session.page.locator("button[data-copy-from]:visible").count() == 0
    assert "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT" in session.page.locator("#env").inner_text()


def test_a_source_fed_by_traces(
    open_session: Callable[..., Session], live_server: Any, fake_engine: object
) -> None:
    _, raw = ApiKey.issue("support bot (production)")
    exporter = OTLPSpanExporter(
        endpoint=f"{live_server.url}/otlp/v1/traces",
        headers={"x-goog-api-key": raw},
        compression=Compression.Gzip,
    )
    provider = TracerProvider(resource=Resource.create({"service.name": "support-bot"}))
    provider.add_span_processor(BatchSpanProcessor(exporter))
    tracer = provider.get_tracer("screenshots")
    for n in range(12):
        rag_traces.answer(tracer, n, rag_traces.CONVENTIONS[n % 2])
    with tracer.start_as_current_span("GET /healthz") as span:  # no RAG answer: dropped
        span.set_attribute("http.request.method", "GET")
    provider.shutdown()
    services.assemble_due(now=timezone.now() + timedelta(seconds=11), send=False)
    for chunk in BatchChunk.objects.filter(state=BatchChunk.State.QUEUED):
        batch_running.run_chunk(chunk.pk)
    source = TraceSource.objects.get()
    session = open_session()
    session.goto(source.get_absolute_url())
    assert session.page.locator('[data-stat="checked"]').inner_text() == "12"
    shoot(session, "trace-source")
    session.page.click("text=Open today's job")
    session.page.wait_for_selector("text=Open review")
    shoot(session, "trace-job", ("light",))
    session.no_xss()
