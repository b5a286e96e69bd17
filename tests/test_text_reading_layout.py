"""The engine reads text in one place: `engine/lang/`.

A word pattern, a sentence splitter or a stemmer anywhere else in the engine is a second
reading of the same text (round 3 had six word patterns, five sentence splitters and two
stemmers), slower and subtly different from the first. Patterns are found by running
them, not by reading their source: a fresh interpreter imports every engine module with
`re.compile` watched, and each pattern compiled by a module outside `lang/` is tried on
words and sentences. Patterns written into a call (`re.split(r"...", text)`) are read
from the source and tried the same way; a pattern built at call time cannot be tried,
so it is refused too.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import grounding_app

ROOT = Path(grounding_app.__file__).resolve().parent
ENGINE = ROOT / "engine"
LANG = ENGINE / "lang"
STEMMERS = frozenset({"Stemmer", "snowballstemmer", "nltk", "spacy"})
_RE_CALLS = frozenset(
    {"compile", "match", "search", "fullmatch", "findall", "finditer", "split", "sub", "subn"}
)

# argv[1]: the root of the package to load; argv[2:]: its module names.
WATCH = """
import importlib, json, re, sys
sys.path.insert(0, sys.argv[1])
seen = {}
compile_ = re.compile
def watched(pattern, flags=0):
    compiled = compile_(pattern, flags)
    module = sys._getframe(1).f_globals.get("__name__", "")
    if isinstance(pattern, str):
        seen.setdefault(module, []).append([pattern, int(flags)])
    return compiled
re.compile = watched
for name in sys.argv[2:]:
    importlib.import_module(name)
print(json.dumps(seen))
"""


def reads_words(pattern: re.Pattern[str]) -> bool:
    """Whether the pattern takes a word out of text: it is one word, or finds them."""
    if any(pattern.fullmatch(word) for word in ("hello", "Hello", "world", "שלום")):
        return True
    return [m.group() for m in pattern.finditer("Hello big world")] == ["Hello", "big", "world"]


def reads_sentences(pattern: re.Pattern[str]) -> bool:
    """Whether the pattern cuts or ends sentences: splits two of them, finds their ends,
    or is a whole sentence and not the same words without their period."""
    text = "It rains. It pours."
    if [p.strip() for p in pattern.split(text) if p and p.strip()] == ["It rains.", "It pours."]:
        return True
    if [m.start() for m in pattern.finditer(text)] == [8, 18]:
        return True
    return bool(pattern.fullmatch("It rains.")) and not pattern.fullmatch("It rains")


def _modules(root: Path) -> list[str]:
    names = []
    for path in sorted((root / "grounding_app" / "engine").rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


def compiled_patterns(root: Path) -> dict[str, list[tuple[str, int]]]:
    """Module -> the patterns it compiles when imported, in a fresh interpreter."""
    result = subprocess.run(
        [sys.executable, "-c", WATCH, str(root), *_modules(root)],
        capture_output=True,
        text=True,
        cwd=root,
        timeout=300,
        check=True,
    )
    return {m: [(p, f) for p, f in found] for m, found in json.loads(result.stdout).items()}


def _outside_lang(module: str) -> bool:
    return module.startswith("grounding_app.engine") and not module.startswith(
        "grounding_app.engine.lang"
    )


def _written_patterns(path: Path) -> list[tuple[int, str | None]]:
    """(line, pattern or None when built at call time) for each `re.<call>(pattern, ...)`
    inside a function: module-level ones are compiled at import and watched."""
    found: list[tuple[int, str | None]] = []
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for function in ast.walk(tree):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            continue
        for node in ast.walk(function):
            if not (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "re"
                and node.func.attr in _RE_CALLS
                and node.args
            ):
                continue
            first = node.args[0]
            literal = isinstance(first, ast.Constant) and isinstance(first.value, str)
            found.append((node.lineno, first.value if literal else None))  # type: ignore[union-attr]
    return sorted(set(found), key=lambda item: (item[0], item[1] is None, item[1] or ""))


def _stemmer_imports(path: Path) -> list[int]:
    lines = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""]
        else:
            continue
        if any(name.split(".")[0] in STEMMERS for name in names):
            lines.append(node.lineno)
    return lines


def text_readers(root: Path) -> list[str]:
    """'where: what' for each word or sentence reading outside `engine/lang/`."""
    offences = []
    for module, patterns in sorted(compiled_patterns(root).items()):
        if not _outside_lang(module):
            continue
        for source, flags in patterns:
            compiled = re.compile(source, flags)
            kinds = [
                k for k, f in (("word", reads_words), ("sentence", reads_sentences)) if f(compiled)
            ]
            if kinds:
                offences.append(f"{module}: {'/'.join(kinds)} pattern {source[:60]!r}")
    engine = root / "grounding_app" / "engine"
    for path in sorted(engine.rglob("*.py")):
        if engine / "lang" in path.parents:
            continue
        where = path.relative_to(root).as_posix()
        for line, source in _written_patterns(path):
            if source is None:
                offences.append(f"{where}:{line}: a pattern built at call time")
                continue
            compiled = re.compile(source)
            if reads_words(compiled) or reads_sentences(compiled):
                offences.append(f"{where}:{line}: pattern {source[:60]!r}")
        offences += [f"{where}:{line}: a stemmer" for line in _stemmer_imports(path)]
    return offences


def test_no_word_or_sentence_reading_outside_lang() -> None:
    assert text_readers(ROOT.parent) == []


def test_the_probes_tell_readers_from_other_patterns() -> None:
    words = [r"[^\W_]+", r"\w+(?:'\w+)?", r"\S+", r"[^\W\d_]+"]
    sentences = [r"(?<=[.!?])\s+", r"[.!?](?=\s|\Z)", r".*[.!?]\W*"]
    others = [r"\s+", r"[ \t-]+", r"</?[A-Za-z][\w-]*>", r"(label_)?\d+", "[\ud800-\udfff]"]
    assert all(reads_words(re.compile(p)) for p in words)
    assert all(reads_sentences(re.compile(p)) for p in sentences)
    assert not any(reads_words(re.compile(p)) or reads_sentences(re.compile(p)) for p in others)


def test_the_check_sees_every_form(tmp_path: Path) -> None:
    engine = tmp_path / "grounding_app" / "engine"
    (engine / "lang").mkdir(parents=True)
    for folder in (tmp_path / "grounding_app", engine, engine / "lang"):
        (folder / "__init__.py").write_text("")
    (engine / "lang" / "words.py").write_text(
        "import re\nWORD = re.compile(r'\\w+')\n"  # inside lang/: fine
    )
    (engine / "check.py").write_text(
        "import re\n"
        "import Stemmer\n"
        "_WORD = re.compile(r'[^\\W_]+')\n"
        "_SPACE = re.compile(r'\\s+')\n"  # not a word reader: fine
        "def sentences(text, end):\n"
        "    return re.split(r'(?<=[.!?])\\s+', text) + re.split(end, text)\n"
    )
    sys.modules.pop("Stemmer", None)
    found = text_readers(tmp_path)
    assert found == [
        "grounding_app.engine.check: word pattern '[^\\\\W_]+'",
        "grounding_app/engine/check.py:6: pattern '(?<=[.!?])\\\\s+'",
        "grounding_app/engine/check.py:6: a pattern built at call time",
        "grounding_app/engine/check.py:2: a stemmer",
    ]
