"""`manage.py grounding_batch IN OUT`: a terminal progress bar and a results file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from grounding_app.batch.models import BatchJob
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
