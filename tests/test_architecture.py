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


# The engine's boundary, both ways: code outside `engine/` imports only the names the
# package exports (`grounding_app.engine.__all__`), never a submodule, so the engine's
# modules can be split or renamed without touching the app; and the engine imports no
# Django and no other part of the app, so it runs (and is tested) as plain Python.
ENGINE = "grounding_app.engine"
ENGINE_DIR = ROOT / "engine"
# Files that reach into the engine on purpose, with what they may import and why.
WHITE_BOX = {
    # Times the engine with its role and hedge checks switched off, by patching the
    # pipeline module's functions: there is no public switch for them.
    "lab/bench_checks.py": {f"{ENGINE}.pipeline"},
    # Runs a pinned commit's engine too, whose package may not export these (928e81b's
    # does not export GroundingEngine).
    "lab/bench_worker.py": {f"{ENGINE}.pipeline", f"{ENGINE}.types"},
    # Record and replay each check by name, and fit the aggregator on what they fired:
    # the engine runs its checks as one registry and exposes no check one by one.
    "lab/check_runs.py": {f"{ENGINE}.aggregate", f"{ENGINE}.checks"},
    "lab/check_report.py": {f"{ENGINE}.aggregate", f"{ENGINE}.checks"},
    "lab/fit_aggregator.py": {f"{ENGINE}.aggregate", f"{ENGINE}.checks"},
}


def _public_names() -> set[str]:
    import grounding_app.engine

    return set(grounding_app.engine.__all__)


def _imports(path: Path) -> list[tuple[int, str, str | None]]:
    """(line, absolute module, name taken from it or None) for each import in the file;
    relative imports are resolved from the last `grounding_app` folder in its path."""
    folders = path.parent.parts
    package = list(folders[len(folders) - folders[::-1].index(ROOT.name) - 1 :])
    found: list[tuple[int, str, str | None]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name, None) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            found += [(node.lineno, module, alias.name) for alias in node.names]
    return sorted(found, key=lambda item: item[0])  # ast.walk: breadth first


def _engine_internals(
    path: Path, public: set[str], allowed: frozenset[str] = frozenset()
) -> list[str]:
    """'LINE: what' for each import of the engine's internals: a submodule, or a name the
    package does not export (a submodule imported as `from grounding_app.engine import
    pipeline` is one of those)."""
    offences = []
    for line, module, name in _imports(path):
        if module == ENGINE and name is not None and name not in public:
            what = f"{ENGINE}.{name}"
        elif module.startswith(f"{ENGINE}."):
            what = module
        else:
            continue
        if what not in allowed:
            offences.append(f"{line}: {what}")
    return list(dict.fromkeys(offences))  # `from x import a, b`: one line, one entry


def _outside_engine() -> list[Path]:
    return sorted(p for p in ROOT.rglob("*.py") if ENGINE_DIR not in p.parents)


def test_code_outside_the_engine_imports_only_its_public_names() -> None:
    public = _public_names()
    offenders = {}
    for path in _outside_engine():
        relative = path.relative_to(ROOT).as_posix()
        allowed = frozenset(WHITE_BOX.get(relative, ()))
        if offences := _engine_internals(path, public, allowed):
            offenders[relative] = offences
    assert offenders == {}, "import these from grounding_app.engine, exported there"


def test_the_white_box_exceptions_are_still_needed() -> None:
    public = _public_names()
    for relative, allowed in WHITE_BOX.items():
        used = {o.split(": ")[1] for o in _engine_internals(ROOT / relative, public)}
        assert allowed <= used, f"{relative} no longer needs {sorted(allowed - used)}"


def test_the_public_names_are_no_modules() -> None:
    # A submodule in `__all__` would let the check above pass on `engine.pipeline.X`.
    import inspect

    import grounding_app.engine

    modules = [n for n in _public_names() if inspect.ismodule(getattr(grounding_app.engine, n))]
    assert modules == []


def test_the_engine_check_sees_every_form(tmp_path: Path) -> None:
    module = tmp_path / "grounding_app" / "reviews" / "view.py"
    module.parent.mkdir(parents=True)
    module.write_text(
        "from grounding_app import engine\n"  # the package itself: fine
        "from grounding_app.engine import CheckRequest, check\n"  # public names: fine
        "import grounding_app.engine\n"
        "from grounding_app.engine.offsets import utf8_len\n"
        "import grounding_app.engine.types as types\n"
        "from grounding_app.engine import service, Fact\n"
        "def handler():\n"
        "    from grounding_app.engine.verifier.model import VERIFIER_DIR\n"
        "    return VERIFIER_DIR\n"
        "from ..engine import judges\n"
        "from ..engine.types import Fact\n"
    )
    assert _engine_internals(module, _public_names()) == [
        "4: grounding_app.engine.offsets",
        "5: grounding_app.engine.types",
        "6: grounding_app.engine.service",
        "8: grounding_app.engine.verifier.model",
        "10: grounding_app.engine.judges",
        "11: grounding_app.engine.types",
    ]


def _app_or_django(path: Path) -> list[str]:
    """'LINE: what' for each import of Django or of the app outside the engine."""
    offences = []
    for line, module, name in _imports(path):
        full = f"{module}.{name}" if module == "grounding_app" and name else module
        top = full.split(".")[0]
        inside = full == ENGINE or full.startswith(f"{ENGINE}.")
        if top == "django" or (top == "grounding_app" and not inside):
            offences.append(f"{line}: {full}")
    return offences


def test_the_engine_imports_neither_django_nor_the_app() -> None:
    offenders = {}
    for path in sorted(ENGINE_DIR.rglob("*.py")):
        if offences := _app_or_django(path):
            offenders[path.relative_to(ROOT).as_posix()] = offences
    assert offenders == {}


def test_the_engine_side_check_sees_django_and_the_app(tmp_path: Path) -> None:
    module = tmp_path / "grounding_app" / "engine" / "judge.py"
    module.parent.mkdir(parents=True)
    module.write_text(
        "from grounding_app.engine.types import Fact\n"  # the engine's own: fine
        "from grounding_app import engine\n"  # fine
        "from django.conf import settings\n"
        "import django\n"
        "from grounding_app import metrics\n"
        "def later():\n"
        "    from grounding_app.reviews.models import Review\n"
        "    return Review\n"
        "from . import offsets\n"  # fine
        "from .. import formats\n"
    )
    assert _app_or_django(module) == [
        "3: django.conf",
        "4: django",
        "5: grounding_app.metrics",
        "7: grounding_app.reviews.models",
        "10: grounding_app.formats",
    ]


# The packages of the app (its sub-packages and top-level modules) in layers, bottom up.
# A package imports only from layers below its own; packages of one layer import none of
# each other. So there are no cycles, and shared code sits below every package using it
# (docs/architecture.md#package-layers says why this order).
LAYERS: tuple[tuple[str, ...], ...] = (
    ("engine",),
    ("formats",),
    ("common", "metrics"),
    ("rendering",),
    ("retention", "counters", "htmx", "downloads", "celery", "active_verifier"),
    ("limits",),
    ("accounts", "api"),
    ("policies",),
    ("reviews",),
    ("annotations",),
    ("batch", "verifiers"),
    ("traces",),
    ("lab",),
    ("evaluation",),
    ("settings", "urls", "wsgi"),
)
# Imports that go up or sideways on purpose, (importer, imported) -> why; at most two,
# each with its reason. None is needed now: a shared piece moves below its users instead.
UPWARD_ALLOWED: dict[tuple[str, str], str] = {}
# Below Django: plain Python that a script or a worker can use without settings.
DJANGO_FREE = ("engine", "formats", "common", "metrics", "rendering")

Edges = dict[tuple[str, str], list[str]]


def _target(module: str, name: str | None) -> str | None:
    """The package of the app an import reaches (None: outside the app)."""
    parts = module.split(".")
    if parts[0] != ROOT.name:
        return None
    return parts[1] if len(parts) > 1 else name  # `from grounding_app import engine`


def package_imports(root: Path = ROOT) -> Edges:
    """(importer, imported) -> 'file:line' of every import from one package to another,
    lazy ones and those of management commands and migrations included."""
    edges: Edges = {}
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root)
        if relative.parts == ("__init__.py",):  # the namespace itself, empty
            continue
        importer = relative.parts[0].removesuffix(".py")
        for line, module, name in _imports(path):
            imported = _target(module, name)
            if imported is not None and imported != importer:
                where = edges.setdefault((importer, imported), [])
                if f"{relative.as_posix()}:{line}" not in where:  # `from x import a, b`: once
                    where.append(f"{relative.as_posix()}:{line}")
    return edges


def package_cycles(edges: Edges) -> list[list[str]]:
    """The packages that reach each other through imports, one sorted group per cycle."""
    graph: dict[str, set[str]] = {}
    for importer, imported in edges:
        graph.setdefault(importer, set()).add(imported)

    def reach(start: str) -> set[str]:
        seen: set[str] = set()
        stack = [start]
        while stack:
            for package in graph.get(stack.pop(), ()):
                if package not in seen:
                    seen.add(package)
                    stack.append(package)
        return seen

    reached = {package: reach(package) for package in graph}
    groups = {
        tuple(sorted(p for p in reached[package] if package in reached.get(p, ())))
        for package in graph
        if package in reached[package]
    }
    return sorted(list(group) for group in groups)


def not_down(edges: Edges, layers: tuple[tuple[str, ...], ...] = LAYERS) -> Edges:
    """The imports that go up the layers or sideways within one."""
    rank = {package: i for i, layer in enumerate(layers) for package in layer}
    return {
        (importer, imported): where
        for (importer, imported), where in edges.items()
        if rank[imported] >= rank[importer]
    }


def _show(edges: Edges) -> str:
    return "".join(f"\n  {a} -> {b}: {', '.join(where)}" for (a, b), where in sorted(edges.items()))


def test_every_package_has_one_layer() -> None:
    placed = [package for layer in LAYERS for package in layer]
    modules = {path.stem for path in ROOT.glob("*.py") if path.name != "__init__.py"}
    folders = {path.parent.name for path in ROOT.glob("*/__init__.py")}
    assert len(placed) == len(set(placed))
    assert sorted(modules | folders) == sorted(placed)


def test_no_package_cycle() -> None:
    cycles = package_cycles(package_imports())
    print("cycles:", cycles)
    assert cycles == []


def test_imports_go_down_the_layers() -> None:
    offenders = not_down(package_imports())
    print("upward or sideways:" + _show(offenders))
    unexpected = {edge: where for edge, where in offenders.items() if edge not in UPWARD_ALLOWED}
    assert unexpected == {}, "move the shared piece below both:" + _show(unexpected)


def test_the_allowed_upward_imports_are_few_and_still_there() -> None:
    assert len(UPWARD_ALLOWED) <= 2 and all(UPWARD_ALLOWED.values())
    assert set(UPWARD_ALLOWED) <= set(not_down(package_imports()))


def test_the_django_free_packages_import_no_django() -> None:
    offenders = {}
    for package in DJANGO_FREE:
        folder = ROOT / package
        for path in sorted(
            folder.rglob("*.py") if folder.is_dir() else [folder.with_suffix(".py")]
        ):
            lines = [f"{line}: {m}" for line, m, _ in _imports(path) if m.split(".")[0] == "django"]
            if lines:
                offenders[path.relative_to(ROOT).as_posix()] = lines
    assert offenders == {}


def test_the_package_checks_see_cycles_and_upward_imports(tmp_path: Path) -> None:
    root = tmp_path / "grounding_app"
    for relative, text in {
        "__init__.py": "",
        "formats/__init__.py": "from grounding_app import engine\n",  # down: fine
        "engine/__init__.py": "def later():\n    from ..formats import grounded\n",
        "limits.py": "from grounding_app.api.errors import error_response\n",
        "api/auth.py": "import grounding_app.limits\nfrom grounding_app.engine import check\n",
        "common/numbers.py": "from grounding_app import metrics\n",  # sideways
    }.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text)
    edges = package_imports(root)
    assert package_cycles(edges) == [["api", "limits"], ["engine", "formats"]]
    assert _show(not_down(edges)) == (
        "\n  common -> metrics: common/numbers.py:1"
        "\n  engine -> formats: engine/__init__.py:2"
        "\n  limits -> api: limits.py:1"
    )


# No function over MAX_FUNCTION_LINES, outside tests and migrations: a longer one does
# several things that want names of their own. The lab counts too, inside the app or as a
# top-level `grounding_lab` beside it.
MAX_FUNCTION_LINES = 80


def long_functions(root: Path, limit: int = MAX_FUNCTION_LINES) -> list[str]:
    """'file:line name (N lines)' for each function or method over `limit` lines."""
    found = []
    for path in sorted(root.rglob("*.py")):
        if "migrations" in path.relative_to(root).parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > limit:
                    where = f"{path.relative_to(root.parent).as_posix()}:{node.lineno}"
                    found.append(f"{where} {node.name} ({length} lines)")
    return found


def test_no_function_is_over_80_lines() -> None:
    lab = ROOT.parent / "grounding_lab"
    offenders = long_functions(ROOT) + (long_functions(lab) if lab.is_dir() else [])
    assert offenders == [], "split these into steps:\n" + "\n".join(offenders)


def test_the_length_check_sees_a_long_function(tmp_path: Path) -> None:
    root = tmp_path / "grounding_app"

    def body(lines: int, indent: str) -> str:
        return "".join(f"{indent}x{n} = {n}\n" for n in range(lines))

    (root / "reviews" / "migrations").mkdir(parents=True)
    (root / "reviews" / "services.py").write_text(
        "def short():\n    return 1\n\n\n"
        f"class Page:\n    def long(self):\n{body(80, '        ')}\n\n"  # 81 lines: too long
        f"async def fits():\n{body(79, '    ')}"  # 80 lines: fine
    )
    (root / "reviews" / "migrations" / "0001_initial.py").write_text(
        f"def forwards():\n{body(200, '    ')}"
    )
    assert long_functions(root) == ["grounding_app/reviews/services.py:6 long (81 lines)"]
