"""The traces pages: sources, a source's counts, Connect with its settings and keys."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from grounding_app.api.models import ApiKey
from grounding_app.traces import services
from grounding_app.traces.assemble import NO_ANSWER
from grounding_app.traces.models import TraceSource
from grounding_lab.rag_traces import OPENINFERENCE
from tests.traces.conftest import encode, record

pytestmark = pytest.mark.django_db


def signed_in(make_user: Callable[..., Any], role: str) -> Client:
    client = Client()
    client.force_login(make_user(role))
    return client


def test_connect_shows_this_servers_endpoint_and_the_key_header(
    make_user: Callable[..., Any],
) -> None:
    page = signed_in(make_user, "reviewer").get("/traces/connect/").content.decode()
    assert "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=http://testserver/otlp/v1/traces" in page
    assert "OTEL_EXPORTER_OTLP_TRACES_HEADERS=x-goog-api-key=YOUR_API_KEY" in page
    assert "traces_endpoint: http://testserver/otlp/v1/traces" in page
    assert 'data-copy-from="python"' in page
    assert "Create key" not in page  # only an admin creates keys


def test_an_admin_creates_a_key_shown_once_in_the_settings(make_user: Callable[..., Any]) -> None:
    client = signed_in(make_user, "admin")
    page = client.post("/traces/connect/", {"name": "rag prod"}).content.decode()
    key = ApiKey.objects.get(name="rag prod")
    raw = page.split("x-goog-api-key=", 1)[1].split("\n", 1)[0]
    assert raw.startswith(key.prefix) and ApiKey.authenticate(raw) == key
    assert raw not in client.get("/traces/connect/").content.decode()


def test_a_key_name_keeps_no_control_characters(make_user: Callable[..., Any]) -> None:
    """A NUL in the name answered 500 on PostgreSQL, which refuses it in text."""
    client = signed_in(make_user, "admin")
    client.post("/traces/connect/", {"name": "rag\x00 prod\x07"})
    client.post("/traces/connect/", {"name": "\x00\x1b"})
    names = sorted(ApiKey.objects.values_list("name", flat=True))
    assert names == ["OpenTelemetry traces", "rag prod"]


def test_a_reviewer_cannot_create_keys(make_user: Callable[..., Any]) -> None:
    response = signed_in(make_user, "reviewer").post("/traces/connect/", {"name": "x"})
    assert response.status_code == 403 and not ApiKey.objects.exists()


def test_pages_need_a_reviewer_or_admin(make_user: Callable[..., Any]) -> None:
    assert Client().get("/traces/").status_code == 302
    assert signed_in(make_user, "annotator").get("/traces/connect/").status_code == 403


def test_the_source_page_counts_drops_and_unknown_attributes(
    make_user: Callable[..., Any], post_export: Any, api_key: tuple[Any, str]
) -> None:
    spans = record([0, 1], OPENINFERENCE)
    no_answer = [s for s in record([2], OPENINFERENCE) if s.name == "retrieve"]
    post_export(encode(spans + no_answer))
    services.assemble_due(now=timezone.now() + timedelta(seconds=11), send=False)
    source = TraceSource.objects.get()
    client = signed_in(make_user, "reviewer")
    listing = client.get("/traces/").content.decode()
    assert source.get_absolute_url() in listing
    page = client.get(source.get_absolute_url()).content.decode()
    assert 'data-stat="spans">7<' in page
    assert 'data-stat="checked">2<' in page
    assert NO_ANSWER in page
    assert "acme.prompt_version" in page
    assert source.job.get_absolute_url() in page


def test_the_nav_leads_to_the_traces_pages(make_user: Callable[..., Any]) -> None:
    page = signed_in(make_user, "reviewer").get("/traces/connect/").content.decode()
    assert '<a href="/traces/" aria-current="page">Traces</a>' in page
