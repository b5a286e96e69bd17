"""GROUNDING_PRELOAD and RETENTION_PURGE_INTERVAL start background work in serving
processes only: the first start of `scripts/serve` or `scripts/run` on a new database
migrates with them set, and a command that read the verifier's table before `migrate`
made it, or purged during app initialisation, printed a traceback and Django's warning
about queries during app initialisation into the start log."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import override_settings

from grounding_app.active_verifier.checker import Checker
from grounding_app.retention import scheduler
from tests.serving import ROOT, production_environment


def test_migrate_on_a_new_database_with_preload_logs_no_traceback(tmp_path: Path) -> None:
    env = production_environment(tmp_path)
    env.update(GROUNDING_PRELOAD="1", GROUNDING_JUDGE="verifier", RETENTION_PURGE_INTERVAL="3600")
    result = subprocess.run(
        [str(ROOT / ".venv" / "bin" / "python"), "manage.py", "migrate", "--noinput"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    log = result.stdout + result.stderr
    assert "Traceback" not in log and "RuntimeWarning" not in log, log
    assert "warm-up" not in log, log


@pytest.mark.parametrize("on", [True, False])
def test_the_wsgi_entry_point_starts_the_background_work_asked_for(monkeypatch, on: bool) -> None:
    started: list[object] = []
    monkeypatch.setattr(Checker, "warm_up_in_background", lambda self: started.append("warm-up"))
    monkeypatch.setattr(scheduler, "start_purging", started.append)
    monkeypatch.delitem(sys.modules, "grounding_app.wsgi", raising=False)
    with override_settings(GROUNDING_PRELOAD=on, RETENTION_PURGE_INTERVAL=600 if on else 0):
        importlib.import_module("grounding_app.wsgi")  # as a server imports it
    assert started == (["warm-up", 600] if on else [])
