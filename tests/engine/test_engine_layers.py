"""The engine's layers, bottom up: shapes, language profiles, the text layer, checks and
judges (side by side, neither using the other), the pipeline. A module imports only
from its own group or from a lower layer; the test names the file and the import."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parents[2] / "grounding_app" / "engine"

# group -> (layer, modules or packages, relative to the engine)
LAYERS = {
    "shapes": (0, {"types", "offsets", "onnx_models", "memo", "escalation", "scales"}),
    "lang": (1, {"lang"}),
    "text": (2, {"normalise", "claims", "lexical", "roles", "hedges", "unsupported", "retrieval"}),
    "checks": (3, {"checks"}),
    "judges": (3, {"encoders", "judges", "word_match", "verifier"}),
    "pipeline": (
        4,
        {
            "pipeline",
            "claim_work",
            "evidence",
            "verifying",
            "response",
            "aggregate",
            "service",
            "__init__",
        },
    ),
}


def group_of(module: str) -> str:
    head = module.split(".")[0]
    for group, (_, members) in LAYERS.items():
        if head in members:
            return group
    raise AssertionError(f"engine module {module!r} is in no layer: add it to LAYERS")


def module_name(path: Path) -> str:
    parts = path.relative_to(ENGINE).with_suffix("").parts
    if parts[-1] == "__init__" and len(parts) > 1:
        parts = parts[:-1]
    return ".".join(parts)


def engine_imports(source: str) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module.startswith("grounding_app.engine."):
                found.append((node.lineno, node.module.removeprefix("grounding_app.engine.")))
            elif node.module == "grounding_app.engine":
                found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("grounding_app.engine."):
                    found.append((node.lineno, alias.name.removeprefix("grounding_app.engine.")))
    return found


FILES = sorted(ENGINE.rglob("*.py"))


def violations(module: str, source: str) -> list[str]:
    own = group_of(module)
    wrong = []
    for line, target in engine_imports(source):
        other = group_of(target)
        if other != own and LAYERS[other][0] >= LAYERS[own][0]:
            wrong.append(f"{module}:{line} ({own}) imports {target} ({other})")
    return wrong


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ENGINE)))
def test_imports_go_down_the_layers(path: Path):
    wrong = violations(module_name(path), path.read_text(encoding="utf-8"))
    assert not wrong, "\n".join(wrong)


def test_every_engine_module_has_a_layer():
    for path in FILES:
        group_of(module_name(path))


@pytest.mark.parametrize(
    ("module", "source", "flagged"),
    [
        ("checks.role", "from grounding_app.engine.pipeline import GroundingEngine", True),
        ("checks.role", "from grounding_app.engine.judges import Evidence", True),
        ("word_match", "from grounding_app.engine.checks import Reading", True),
        ("lang", "import grounding_app.engine.lexical", True),
        ("lexical", "from grounding_app.engine import pipeline", True),
        ("checks.role", "from grounding_app.engine.roles import misattributes", False),
        ("pipeline", "from grounding_app.engine.checks import registry", False),
        ("lang", "from grounding_app.engine.lang import he", False),
    ],
)
def test_the_rule_catches_upward_and_sideways_imports(module, source, flagged):
    assert bool(violations(module, source)) is flagged
