"""Words are read in one place: `engine/lang/`. Outside it no engine module compiles a
pattern that reads words (a run of word characters, or words of a language written into
the pattern), imports a language's module (`lang.en`, `lang.he`) or compares a language
code: each reaches a language's words through its profile (`lang.profile(code)`)."""

from __future__ import annotations

import ast
import importlib
import re
from collections.abc import Mapping
from pathlib import Path

from grounding_app.engine.lang import _NAMES, PROFILES

ENGINE = Path(__file__).resolve().parents[2] / "grounding_app" / "engine"
LANG = ENGINE / "lang"
_RE_CALLS = frozenset(
    {"compile", "search", "match", "fullmatch", "sub", "subn", "split", "findall", "finditer"}
)
# A class that holds \w, or every word character but some (`[^\W\d_]`), repeated: a word.
_CLASS = r"\[(?:\\.|[^\]\\])*\]"
_WORD_RUN = re.compile(rf"\\w[+*{{]|\[\^\\W(?:\\.|[^\]\\])*\][+*{{]|{_CLASS[:-2]}\\w[^\]]*\][+*{{]")
_LANGUAGE_MODULES = ("grounding_app.engine.lang.en", "grounding_app.engine.lang.he")
CODES = frozenset(PROFILES) | frozenset(_NAMES)


def pattern_offences(pattern: str) -> list[str]:
    """What in a pattern reads words: a repeated word character, or letters written as
    they are (two or more, outside classes, escapes, group names and flags)."""
    found = []
    if _WORD_RUN.search(pattern):
        found.append("a run of word characters")
    bare = re.sub(r"\(\?P<\w+>|\(\?P=\w+\)|\(\?[aiLmsux-]+[:)]", "(", pattern)
    bare = re.sub(r"\\.", " ", re.sub(_CLASS, " ", bare))
    if words := re.findall(r"[^\W\d_]{2,}", bare):
        found.append("the words " + ", ".join(sorted(set(words))[:6]))
    return found


def _patterns(call: ast.Call, namespace: Mapping[str, object], top: bool) -> list[str] | None:
    """The pattern text of a `re` call: written there, or an expression of the module's
    names (read at module level only); None where it cannot be read."""
    argument = call.args[0] if call.args else None
    if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
        return [argument.value]
    if argument is None or not top:
        return None
    try:
        value = eval(compile(ast.Expression(argument), "<pattern>", "eval"), dict(namespace))
    except NameError:
        return None
    return [value] if isinstance(value, str) else None


def _language_import(node: ast.AST) -> str | None:
    if isinstance(node, ast.ImportFrom) and node.module:
        if node.module.startswith(_LANGUAGE_MODULES):
            return node.module
        if node.module == "grounding_app.engine.lang":
            named = {alias.name for alias in node.names} & {"en", "he"}
            return f"{node.module}.{sorted(named)[0]}" if named else None
    if isinstance(node, ast.Import):
        return next((a.name for a in node.names if a.name.startswith(_LANGUAGE_MODULES)), None)
    if isinstance(node, ast.Constant) and node.value in _LANGUAGE_MODULES:
        return str(node.value)  # importlib.import_module("...lang.en")
    return None


def _compares_a_code(node: ast.AST) -> bool:
    if not isinstance(node, ast.Compare):
        return False
    if not any(isinstance(op, ast.Eq | ast.NotEq | ast.In | ast.NotIn) for op in node.ops):
        return False
    for side in [node.left, *node.comparators]:
        values = side.elts if isinstance(side, ast.Tuple | ast.List | ast.Set) else [side]
        if any(isinstance(v, ast.Constant) and v.value in CODES for v in values):
            return True
    return False


def offences(source: str, namespace: Mapping[str, object]) -> list[str]:
    """'LINE: what' for each place a module reads words itself."""
    tree = ast.parse(source)
    top_level = {id(node) for statement in tree.body for node in ast.walk(statement)}
    in_function = {
        id(node)
        for outer in ast.walk(tree)
        if isinstance(outer, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
        for node in ast.walk(outer)
    }
    found = []
    for node in ast.walk(tree):
        if (module := _language_import(node)) is not None:
            found.append(f"{node.lineno}: imports {module}")  # type: ignore[attr-defined]
        if _compares_a_code(node):
            found.append(f"{node.lineno}: compares a language code")  # type: ignore[attr-defined]
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "re"
            and node.func.attr in _RE_CALLS
        ):
            continue
        top = id(node) in top_level and id(node) not in in_function
        patterns = _patterns(node, namespace, top)
        if patterns is None:
            found.append(f"{node.lineno}: a pattern this test cannot read: write it out")
            continue
        found.extend(f"{node.lineno}: {what}" for p in patterns for what in pattern_offences(p))
    return found


def _module(path: Path) -> str:
    parts = path.relative_to(ENGINE.parent.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def engine_offences(root: Path = ENGINE) -> dict[str, list[str]]:
    out = {}
    for path in sorted(root.rglob("*.py")):
        if LANG in path.parents:
            continue
        namespace = vars(importlib.import_module(_module(path)))
        if found := offences(path.read_text(encoding="utf-8"), namespace):
            out[str(path.relative_to(ENGINE))] = found
    return out


def test_no_engine_module_outside_lang_reads_words_itself() -> None:
    assert engine_offences() == {}, "read words through the language profile (lang/)"


PLANTED = """
import re
import importlib
from grounding_app.engine.lang.en import STOPWORDS
from grounding_app.engine.lang import he, profile
import grounding_app.engine.lang.en as english
WORD = re.compile(r"\\w+(?:'\\w+)?")
LETTERS = re.compile(r"[^\\W\\d_]+")
NAME = re.compile(r"[\\w'.-]*")
TALLY = re.compile(r"(\\d+) to (\\d+)")
FLAG = re.compile(r"(?P<key>[^:]+): (?P<answer>yes|no)")
BUILT = re.compile(rf"{TEXT}")
SPACES = re.compile(r"\\s+")
YEAR = re.compile(r"(?<![\\w.,])[12]\\d{3}(?![\\w,])(?P<year>x)?")
def read(language, pattern):
    module = importlib.import_module("grounding_app.engine.lang.he")
    if language == "en" or language in ("he", "fr"):
        return re.findall(pattern, "")
    return re.sub(r"[\\s-]+", "_", "a b")
"""


def test_every_way_of_reading_words_outside_lang_is_found() -> None:
    """The check fails on each planted way of reading words, and passes the rest."""
    found = offences(PLANTED, {"TEXT": "the (cat|dog)"})
    assert found == [
        "4: imports grounding_app.engine.lang.en",
        "5: imports grounding_app.engine.lang.he",
        "6: imports grounding_app.engine.lang.en",
        "7: a run of word characters",
        "8: a run of word characters",
        "9: a run of word characters",
        "10: the words to",
        "11: the words no, yes",
        "12: the words cat, dog, the",
        "16: imports grounding_app.engine.lang.he",
        "17: compares a language code",
        "17: compares a language code",
        "18: a pattern this test cannot read: write it out",
    ]
