"""The lab's `python -m grounding_lab.X` commands, as the docs give them, start without
Django settings: a module of the app that reads settings or models at import broke
`check_runs`, `fit_threshold` and six more, and every test passed (pytest-django
configures settings for the test process)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
COMMAND = re.compile(r"python -m (grounding_lab\.[a-z_]+)")


def documented_modules() -> list[str]:
    found: set[str] = set()
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        found.update(COMMAND.findall(page.read_text(encoding="utf-8")))
    return sorted(found)


def test_the_docs_name_lab_commands() -> None:
    assert {"grounding_lab.check_runs", "grounding_lab.fit_threshold"} <= set(documented_modules())


def test_every_documented_lab_command_imports_without_django_settings() -> None:
    script = (
        "import importlib, sys\n"
        "failed = []\n"
        "for name in sys.argv[1:]:\n"
        "    try:\n"
        "        importlib.import_module(name)\n"
        "    except Exception as error:\n"
        "        failed.append(f'{name}: {type(error).__name__}: {error}'[:300])\n"
        "print('\\n'.join(failed))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    done = subprocess.run(
        [sys.executable, "-c", script, *documented_modules()],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    assert done.stdout.strip() == "", done.stdout
