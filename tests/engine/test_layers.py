"""The engine's layers as a test: word tables live in language profiles (`engine/lang/`).

A check that keeps its own English words cannot be given another language's (issue 23),
so the checks import their words from `lang/en.py` (or another language's profile).
Every engine module outside `lang/` is parsed, and a module-level name fails when its
value holds five or more words: literal words or phrases in a set, list, tuple or dict
(display or comprehension), the words of a split string (`"a an the".split()`, also of a
module-level string split by name), or bare words in a regex alternation
(`"is|are|was"`).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import grounding_app

ENGINE = Path(grounding_app.__file__).resolve().parent / "engine"
LANG = ENGINE / "lang"
MOST_WORDS = 4

# (module, name): why the table stays outside `lang/`.
ALLOWED = {
    ("verifier/model.py", "ENTAILMENT_LABELS"): "class names in a model's config.json "
    "(id2label), read whatever language the claims are written in",
}

_COLLECTIONS = (ast.Set, ast.List, ast.Tuple, ast.Dict, ast.SetComp, ast.ListComp, ast.DictComp)
_CONSTRUCTORS = {"frozenset", "set", "tuple", "list", "dict"}
# A literal that is a word or phrase ("dr.", "u.s.a.", "of course"), not punctuation or
# a regex fragment.
_WORD_LITERAL = re.compile(r"[^\W\d_](?:[^\W\d_]|[.' -])*")
# A bare word between a regex's group openings, alternation bars and group ends.
_ALTERNATIVE = re.compile(r"(?:^|(?<=[|(:>]))[A-Za-z][A-Za-z']*(?=[|)]|$)")


def _split_words(call: ast.Call, strings: dict[str, str]) -> int | None:
    """The number of words a `.split()` call on a string (literal or named) gives."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr == "split"):
        return None
    if isinstance(func.value, ast.Constant) and isinstance(func.value.value, str):
        text = func.value.value
    elif isinstance(func.value, ast.Name) and func.value.id in strings:
        text = strings[func.value.id]
    else:
        return None
    args = [a.value for a in call.args if isinstance(a, ast.Constant)]
    return len(text.split(*args))


def _words(value: ast.expr, strings: dict[str, str]) -> int:
    """Words the value holds as a table: literals in collections and split strings."""
    tabled = isinstance(value, _COLLECTIONS) or (
        isinstance(value, ast.Call)
        and (
            (isinstance(value.func, ast.Name) and value.func.id in _CONSTRUCTORS)
            or _split_words(value, strings) is not None
        )
    )
    literals = 0
    split = 0
    skip: set[int] = set()
    for node in ast.walk(value):
        if isinstance(node, ast.Call):
            count = _split_words(node, strings)
            if count is not None:
                split += count
                if isinstance(node.func, ast.Attribute):
                    skip.add(id(node.func.value))
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in skip
            and _WORD_LITERAL.fullmatch(node.value)
        ):
            literals += 1
    return split + (literals if tabled else 0)


def _alternatives(value: ast.expr) -> int:
    """Bare words in the regex alternations of the value's strings."""
    return sum(
        len(_ALTERNATIVE.findall(node.value))
        for node in ast.walk(value)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    )


def word_tables(path: Path) -> list[tuple[int, str, int]]:
    """(line, name, words) of each module-level name bound to a table of words."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    strings = {
        target.id: node.value.value
        for node in tree.body
        if isinstance(node, ast.Assign)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    found = []
    for node in tree.body:
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        for target in targets:
            if not isinstance(target, ast.Name) or target.id.startswith("__"):
                continue  # `__all__` names the module's API, not words
            count = max(_words(value, strings), _alternatives(value))
            if count > MOST_WORDS:
                found.append((node.lineno, target.id, count))
    return found


def _engine_modules() -> list[Path]:
    return sorted(p for p in ENGINE.rglob("*.py") if LANG not in p.parents)


def test_no_word_table_outside_the_language_profiles() -> None:
    offences = []
    seen = set()
    for path in _engine_modules():
        module = path.relative_to(ENGINE).as_posix()
        for line, name, count in word_tables(path):
            seen.add((module, name))
            if (module, name) not in ALLOWED:
                offences.append(f"{module}:{line}: {name} holds {count} words")
    assert not offences, "word tables belong in grounding_app/engine/lang/:\n" + "\n".join(offences)
    assert set(ALLOWED) <= seen, f"allowed tables that are gone: {set(ALLOWED) - seen}"


def test_the_check_finds_each_kind_of_table(tmp_path: Path) -> None:
    module = tmp_path / "check.py"
    module.write_text(
        "import re\n"
        '__all__ = ["a", "b", "c", "d", "e"]\n'
        'DISPLAY = frozenset({"dr.", "mr.", "mrs.", "ms.", "prof."})\n'
        'SPLIT = frozenset("a an the of in".split())\n'
        '_TEXT = """may might could possibly probably"""\n'
        "NAMED = frozenset(_TEXT.split())\n"
        'COMPREHENSION = {w: i for i, w in enumerate(("one", "two", "three", "four", "five"))}\n'
        'REGEX = re.compile(r"\\b(?:is|are|was|were|has)\\b")\n'
        'FEW = frozenset({"us", "usa", "uk"})\n'
        'PUNCTUATION = "\\"\'\u201d\u2019\u00bb)]}"\n'
        'PATTERN = re.compile(r"[^\\W_]+(?:[\'][^\\W_]+)*")\n'
        'TERMINALS = (".", "!", "?", "\u3002", "\uff01", "\uff1f")\n',
        encoding="utf-8",
    )
    assert [name for _, name, _ in word_tables(module)] == [
        "DISPLAY",
        "SPLIT",
        "NAMED",
        "COMPREHENSION",
        "REGEX",
    ]
