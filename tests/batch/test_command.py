"""`manage.py grounding_batch IN OUT`: a terminal progress bar and a results file."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from grounding_app.batch import queueing, running
from grounding_app.batch.management.commands.grounding_batch import Command
from grounding_app.batch.models import BatchChunk, BatchJob
from tests.batch.conftest import jsonl

pytestmark = pytest.mark.django_db


def test_local_run_writes_every_line(tmp_path: Path, fake_engine: Any, capsys: Any) -> None:
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    source.write_bytes(jsonl(25, bad=(4,)))
    call_command("grounding_batch", str(source), str(out), "--local", "--threshold", "0.5")
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [row["line"] for row in rows] == list(range(1, 26))
    assert rows[3]["state"] == "failed" and rows[3]["error"].startswith("line 4: ")
    captured = capsys.readouterr()
    assert "24 checked, 1 failed, 0 not checked" in captured.out
    assert "25/25" in captured.err  # the progress bar's last state
    job = BatchJob.objects.get()
    assert (job.status, job.citation_threshold, job.name) == ("done", 0.5, "in.jsonl")


def test_bad_arguments(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="threshold"):
        call_command("grounding_batch", "x", "y", "--threshold", "2")
    with pytest.raises(CommandError, match="No such file"):
        call_command("grounding_batch", str(tmp_path / "missing.jsonl"), "y")


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _no_endless_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = iter(range(20))

    def sleep(seconds: float) -> None:
        if next(calls, None) is None:
            raise AssertionError("the command is still waiting for a worker after 10 s")

    monkeypatch.setattr("grounding_app.batch.management.commands.grounding_batch.time.sleep", sleep)


def test_without_a_worker_it_says_how_to_start_one_and_checks_locally(
    tmp_path: Path, fake_engine: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    _no_endless_wait(monkeypatch)
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    source.write_bytes(jsonl(3))
    err = io.StringIO()
    call_command("grounding_batch", str(source), str(out), stderr=err)
    assert "No batch worker is running" in err.getvalue()
    assert "celery -A grounding_app.celery worker" in err.getvalue()
    assert "--local" in err.getvalue()
    assert BatchJob.objects.get().status == "done"
    assert len(out.read_text().splitlines()) == 3


def test_a_live_worker_is_waited_for(
    tmp_path: Path, fake_engine: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    queueing.heartbeat("elsewhere:1")
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    source.write_bytes(jsonl(2))

    def worker_runs(seconds: float) -> None:  # what the worker would do meanwhile
        for chunk in BatchChunk.objects.all():
            running.run_chunk(chunk.pk)

    monkeypatch.setattr(
        "grounding_app.batch.management.commands.grounding_batch.time.sleep", worker_runs
    )
    err = io.StringIO()
    call_command("grounding_batch", str(source), str(out), stderr=err)
    assert "No batch worker" not in err.getvalue()
    assert BatchJob.objects.get().status == "done"


def test_old_heartbeats_do_not_count(time_machine: Any) -> None:
    time_machine.move_to("2030-01-01 12:00:00+00:00", tick=False)
    queueing.heartbeat("gone:1")
    assert queueing.live_workers() == 1
    time_machine.shift(queueing.alive_seconds() + 1)
    assert queueing.live_workers() == 0
    assert queueing.live_workers("another-queue") == 0


def test_the_header_is_not_printed_as_an_error(tmp_path: Path, fake_engine: Any) -> None:
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    source.write_bytes(jsonl(1))
    err = _Terminal()  # Django styles a terminal's stderr as errors (red)
    call_command(Command(stderr=err, force_color=True), str(source), str(out), "--local")
    header = next(line for line in err.getvalue().splitlines() if "Job " in line)
    assert header.startswith("Job ") and "\x1b[" not in header
