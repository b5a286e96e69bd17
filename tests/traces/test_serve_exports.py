"""Large and hostile OTLP exports against `scripts/serve` itself, with its default
gunicorn workers, on SQLite and on PostgreSQL (issue 32, items 10 and 11).

Two exports near the 16 MiB limit, sent at once, each of 190,000 one-span traces, are
answered well inside gunicorn's worker timeout, with the spans past
TRACES_MAX_EXPORT_SPANS refused in a partial success; an export whose one span holds NUL
characters loses nothing on either database.
"""

from __future__ import annotations

import http.client
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import pytest
from django.conf import settings
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse

from tests.serving import manage, production_environment, served_on
from tests.traces.conftest import PROTOBUF, one_span_traces

pytestmark = pytest.mark.slow

SEED = "from grounding_app.api.models import ApiKey; print(ApiKey.issue('serve-exports')[1])"
PG_SERVER = "postgres://postgres@127.0.0.1:5432"
BIG = 190_000


@dataclass
class Served:
    port: int
    api_key: str


def _postgres(name: str, create: bool) -> bool:
    """Create (or drop) a scratch database on the CI server; False when none answers."""
    import psycopg

    try:
        with psycopg.connect(f"{PG_SERVER}/postgres", autocommit=True, connect_timeout=3) as db:
            db.execute(f"{'CREATE' if create else 'DROP'} DATABASE {name}")
    except psycopg.OperationalError:
        return False
    return True


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def served(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    scratch = tmp_path_factory.mktemp("serve-exports")
    env = production_environment(scratch)
    env.update(SECURE_SSL_REDIRECT="0", API_RATE_LIMIT="1000")
    env.pop("WEB_CONCURRENCY", None)  # the default number of workers
    database = f"serve_exports_{uuid.uuid4().hex[:12]}"
    if request.param == "postgresql":
        if not _postgres(database, create=True):
            pytest.skip(f"no PostgreSQL server at {PG_SERVER}")
        env["DATABASE_URL"] = f"{PG_SERVER}/{database}"
    manage(env, "migrate", "--noinput")
    key = manage(env, "shell", "-c", SEED).split()[-1]
    try:
        with served_on(env, scratch) as (port, log):
            yield Served(port, key)
    finally:
        if request.param == "postgresql":
            _postgres(database, create=False)
    assert "WORKER TIMEOUT" not in log.read_text()


def _export(served: Served, body: bytes) -> tuple[int, ExportTraceServiceResponse, float]:
    conn = http.client.HTTPConnection("127.0.0.1", served.port, timeout=120)
    started = time.monotonic()
    try:
        headers = {"Content-Type": PROTOBUF, "x-goog-api-key": served.api_key}
        conn.request("POST", "/otlp/v1/traces", body=body, headers=headers)
        response = conn.getresponse()
        parsed = ExportTraceServiceResponse()
        content = response.read()
        if response.status == 200:
            parsed.ParseFromString(content)
        return response.status, parsed, time.monotonic() - started
    finally:
        conn.close()


def test_two_exports_near_the_size_limit_are_answered_in_seconds(served: Served) -> None:
    bodies = [one_span_traces(BIG, f"load-{n}").SerializeToString() for n in range(2)]
    assert all(len(b) <= settings.TRACES_MAX_EXPORT_BYTES for b in bodies)
    with ThreadPoolExecutor(max_workers=2) as pool:
        answers = list(pool.map(lambda body: _export(served, body), bodies))
    kept = settings.TRACES_MAX_EXPORT_SPANS
    for status, parsed, seconds in answers:
        print(f"{len(bodies[0]):,} bytes, {BIG:,} spans: {status} in {seconds:.1f} s")
        assert status == 200
        assert parsed.partial_success.rejected_spans == BIG - kept
        assert "TRACES_MAX_EXPORT_SPANS" in parsed.partial_success.error_message
        assert seconds < 30  # gunicorn kills a worker silent for 60


def test_a_nul_in_one_span_loses_nothing(served: Served) -> None:
    request = one_span_traces(3, "nul-test", first=10_000_000)
    span = request.resource_spans[0].scope_spans[0].spans[1]
    span.name = "na\x00me"
    attribute = span.attributes.add()
    attribute.key, attribute.value.string_value = "k\x00ey", "val\x00ue"
    status, parsed, _ = _export(served, request.SerializeToString())
    assert status == 200
    assert parsed.partial_success.rejected_spans == 0
