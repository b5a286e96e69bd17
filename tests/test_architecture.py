"""The layout's rule as a test: request code never imports `grounding_app.lab`.

`lab/` holds offline tooling (training, evaluation, benchmarks, load test) with heavy
imports and no place in a web worker. Two checks: a fresh interpreter loads what a
request can reach (all apps, the middleware, every URL's view, the template libraries
and the engine's lazily imported verifier) and must hold no lab module; and no module
outside `lab/` and the management commands names `grounding_app.lab` in an import, even
one inside a function, which the first check cannot see.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import grounding_app

ROOT = Path(grounding_app.__file__).resolve().parent

# argv[1:]: further modules to import (the test that shows the check can fail).
LOAD_REQUEST_CODE = """
import importlib, json, sys
import django
django.setup()
from django.core.wsgi import get_wsgi_application
from django.template import engines
from django.urls import URLPattern, URLResolver, get_resolver

get_wsgi_application()  # the middleware chain


def walk(patterns):
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            walk(pattern.url_patterns)
        elif isinstance(pattern, URLPattern):
            pattern.lookup_str  # imports the view's module


walk(get_resolver().url_patterns)
for engine in engines.all():
    engine.engine.template_libraries
    engine.engine.template_context_processors
importlib.import_module("grounding_app.engine.verifier.model")  # GroundingEngine.default
for name in sys.argv[1:]:
    importlib.import_module(name)
print(json.dumps(sorted(m for m in sys.modules if m.startswith("grounding_app"))))
"""


def _loaded(*extra: str) -> list[str]:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "tests.settings", "GROUNDING_PRELOAD": "0"}
    result = subprocess.run(
        [sys.executable, "-c", LOAD_REQUEST_CODE, *extra],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT.parent,
        timeout=300,
        check=True,
    )
    return json.loads(result.stdout.splitlines()[-1])


def _lab(modules: list[str]) -> list[str]:
    return [m for m in modules if m == "grounding_app.lab" or m.startswith("grounding_app.lab.")]


def test_no_lab_module_is_loaded_by_request_code() -> None:
    loaded = _loaded()
    assert "grounding_app.urls" in loaded and "grounding_app.engine.pipeline" in loaded
    assert "grounding_app.annotations.agreement" in loaded  # metrics users are reached
    assert _lab(loaded) == []


def test_the_check_sees_a_lab_import() -> None:
    # The same check, with one lab module imported as a view might: it is reported.
    assert "grounding_app.lab.evaluation" in _lab(_loaded("grounding_app.lab.evaluation"))


def _imports_lab(path: Path) -> list[int]:
    lines = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        if any(
            name == "grounding_app.lab" or name.startswith("grounding_app.lab.") for name in names
        ):
            lines.append(node.lineno)
    return lines


def test_no_runtime_module_imports_lab_even_lazily() -> None:
    offenders = {}
    for path in ROOT.rglob("*.py"):
        parts = path.relative_to(ROOT).parts
        if parts[0] == "lab" or "management" in parts or "migrations" in parts:
            continue
        if lines := _imports_lab(path):
            offenders[str(path.relative_to(ROOT))] = lines
    assert offenders == {}


def test_the_static_check_sees_a_lazy_import(tmp_path: Path) -> None:
    module = tmp_path / "view.py"
    module.write_text(
        "def handler():\n    from grounding_app.lab import evaluation\n    return evaluation\n"
    )
    assert _imports_lab(module) == [2]
