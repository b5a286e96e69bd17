"""The OTLP/HTTP route, mounted under /otlp/: exporters append /v1/traces to a base
endpoint, so OTEL_EXPORTER_OTLP_ENDPOINT=https://HOST/otlp reaches it."""

from __future__ import annotations

from django.urls import path

from grounding_app.traces import views

urlpatterns = [path("v1/traces", views.export_traces, name="traces_otlp")]
