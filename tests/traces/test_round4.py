"""Connect page, round 4 (issue 32): the key first, the packages the Python snippet
needs, a waiting state until the first trace with a button that sends a test trace, and
a link to the traces documentation."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from grounding_app.api.models import ApiKey
from grounding_app.traces import services
from grounding_app.traces.models import PendingSpan, TraceSource
from tests.traces.test_pages import signed_in

pytestmark = pytest.mark.django_db


def test_connect_puts_the_key_first_and_names_the_packages(
    make_user: Callable[..., Any],
) -> None:
    page = signed_in(make_user, "admin").get("/traces/connect/").content.decode()
    assert page.index("Create key") < page.index("Endpoint")
    assert "pip install opentelemetry-sdk opentelemetry-exporter-otlp-proto-http" in page
    assert 'href="/traces/docs/"' in page


def test_connect_waits_for_the_first_trace_and_sends_a_test_one(
    make_user: Callable[..., Any], fake_engine: Any
) -> None:
    client = signed_in(make_user, "admin")
    page = client.get("/traces/connect/").content.decode()
    assert "Waiting for the first trace" in page
    assert "Send a test trace" not in page  # no key to send it with yet
    ApiKey.issue("traces")
    assert "Send a test trace" in client.get("/traces/connect/").content.decode()
    response = client.post("/traces/connect/test-trace/")
    assert response.status_code == 302 and response["Location"] == "/traces/connect/"
    source = TraceSource.objects.get()
    assert source.spans_received == 3 and PendingSpan.objects.count() == 3
    page = client.get("/traces/connect/").content.decode()
    assert "Waiting for the first trace" not in page and "Last trace" in page
    # The sweeper checks it as any trace: one line in the source's job.
    services.sweep(send=False)
    source.refresh_from_db()
    assert source.job is not None and source.job.total == 1
    assert signed_in(make_user, "reviewer").post("/traces/connect/test-trace/").status_code == 403


def test_the_traces_documentation_is_served(make_user: Callable[..., Any]) -> None:
    page = signed_in(make_user, "reviewer").get("/traces/docs/").content.decode()
    assert "<h1>Traces</h1>" in page or "<h1>" in page
    assert "/otlp/v1/traces" in page
