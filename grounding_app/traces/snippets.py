"""The exporter settings the Connect page shows, for this server's endpoint and a key.

Built here rather than in the template so one test can run them: the Python snippet is
what tests/traces/test_live.py configures the real SDK with.
"""

from __future__ import annotations

from dataclasses import dataclass

KEY_HEADER = "x-goog-api-key"


@dataclass(frozen=True)
class Snippets:
    endpoint: str
    env: str
    python: str
    collector: str


def snippets(endpoint: str, key: str, service: str) -> Snippets:
    env = (
        f"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT={endpoint}\n"
        f"OTEL_EXPORTER_OTLP_TRACES_HEADERS={KEY_HEADER}={key}\n"
        "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/protobuf\n"
        "OTEL_EXPORTER_OTLP_TRACES_COMPRESSION=gzip\n"
        f"OTEL_SERVICE_NAME={service}"
    )
    python = f"""from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http import Compression
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

exporter = OTLPSpanExporter(
    endpoint="{endpoint}",
    headers={{"{KEY_HEADER}": "{key}"}},
    compression=Compression.Gzip,
)
provider = TracerProvider(resource=Resource.create({{"service.name": "{service}"}}))
provider.add_span_processor(BatchSpanProcessor(exporter))
trace.set_tracer_provider(provider)"""
    collector = f"""exporters:
  otlphttp/grounding:
    traces_endpoint: {endpoint}
    headers:
      {KEY_HEADER}: {key}
    compression: gzip
    encoding: proto

service:
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [otlphttp/grounding]"""
    return Snippets(endpoint, env, python, collector)
