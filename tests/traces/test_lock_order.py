"""Span inserts and the traces sweeper never deadlock (issue 44, item 10: on PostgreSQL
an export failed 503, "deadlock detected", while the sweeper claimed due traces).

The receiver added spans to a trace in one UPDATE per kind of change, so it could hold
one trace and wait for another while the sweeper's claim, one UPDATE over every due
trace, held the second and waited for the first. The test stops an export right after
its first UPDATE of a trace (Django's execute_wrapper), runs a sweep meanwhile and lets
the export go on: both must finish. On SQLite, whose transactions take the write lock
at BEGIN, the sweep only waits; the test holds there too."""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection, transaction
from django.utils import timezone

from grounding_app.api.models import ApiKey
from grounding_app.traces import services
from grounding_app.traces.attributes import Span
from grounding_app.traces.models import PendingTrace, TraceSource
from grounding_app.traces.otlp import Received
from grounding_app.traces.receiver import receive

pytestmark = pytest.mark.django_db(transaction=True)

FIRST, SECOND = "1" * 32, "2" * 32


def _in_thread(target: Callable[[], object], errors: list[BaseException]) -> threading.Thread:
    def run() -> None:
        try:
            target()
        except BaseException as exc:  # reported by the test, not lost in the thread
            errors.append(exc)
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def test_an_export_and_the_sweeper_s_claim_both_finish() -> None:
    api_key, _ = ApiKey.issue("lock order")
    source = TraceSource.objects.create(api_key=api_key, service_name="shop")
    now = timezone.now()
    for n, trace_id in enumerate((FIRST, SECOND)):  # both complete, so both due
        PendingTrace.objects.create(
            source=source,
            trace_id=trace_id,
            first_seen=now - timedelta(seconds=10 - n),
            last_seen=now,
            spans=1,
            has_root=True,
            has_answer=True,
        )
    # Two kinds of change (a child span, a root span): the second trace is updated first.
    export = [
        Received("shop", Span(SECOND, "a" * 16, "b" * 16, "retrieve")),
        Received("shop", Span(FIRST, "c" * 16, "", "root")),
    ]
    stopped, go_on = threading.Event(), threading.Event()

    def stop_after_first_trace_update(execute: Any, sql: str, *args: Any) -> Any:
        result = execute(sql, *args)
        if sql.startswith(f'UPDATE "{PendingTrace._meta.db_table}"') and not stopped.is_set():
            stopped.set()
            go_on.wait(10)
        return result

    def export_spans() -> None:
        with connection.execute_wrapper(stop_after_first_trace_update):
            receive(api_key, export, Counter())

    errors: list[BaseException] = []
    exporting = _in_thread(export_spans, errors)
    assert stopped.wait(10)
    started = time.monotonic()
    sweeping = _in_thread(lambda: services.assemble_due(send=False), errors)
    sweeping.join(2)  # waits or claims what it may; a deadlock shows once both go on
    go_on.set()
    exporting.join(30)
    sweeping.join(30)
    assert not exporting.is_alive() and not sweeping.is_alive()
    assert errors == [], f"after {time.monotonic() - started:.1f} s: {errors!r}"
    services.assemble_due(send=False)  # what the sweep skipped is claimed at the next
    states = set(PendingTrace.objects.values_list("state", flat=True))
    assert states <= {PendingTrace.State.CHECKED, PendingTrace.State.DROPPED}
    assert PendingTrace.objects.get(trace_id=FIRST).spans == 2  # the export's span counted


def _finished_traces(count: int) -> list[int]:
    api_key, _ = ApiKey.issue("forget")
    source = TraceSource.objects.create(api_key=api_key, service_name="shop")
    long_ago = timezone.now() - timedelta(days=1)
    return [
        PendingTrace.objects.create(
            source=source,
            trace_id=f"{n:032x}",
            state=PendingTrace.State.CHECKED,
            first_seen=long_ago,
            last_seen=long_ago,
        ).pk
        for n in range(1, count + 1)
    ]


def test_finished_traces_are_forgotten_a_batch_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(services, "FORGET_BATCH", 2)
    _finished_traces(5)
    assert services.forget_finished() == 5
    assert not PendingTrace.objects.exists()


@pytest.mark.skipif(connection.vendor != "postgresql", reason="SQLite locks the whole file")
def test_forgetting_skips_a_trace_another_transaction_holds() -> None:
    held = _finished_traces(3)[0]
    locked, done = threading.Event(), threading.Event()

    def hold() -> None:
        with transaction.atomic():
            PendingTrace.objects.select_for_update().filter(pk=held).exists()
            locked.set()
            done.wait(10)

    errors: list[BaseException] = []
    holder = _in_thread(hold, errors)
    assert locked.wait(10)
    started = time.monotonic()
    forgotten = services.forget_finished()
    waited = time.monotonic() - started
    done.set()
    holder.join(10)
    assert errors == [] and waited < 2
    assert forgotten == 2 and list(PendingTrace.objects.values_list("pk", flat=True)) == [held]
