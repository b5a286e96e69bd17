"""Docs that cannot drift: the code map names every package, every page is reachable
from docs/index.md, links and `file.py:name` references name something, and the
images live in one folder.

Each rule is a pure function over texts and a list of files, so each test also plants a
violation and shows that the rule catches it.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp")
# Where references are read: the code and the docs, not tests (they plant bad ones).
REFERENCE_ROOTS = ("grounding_app/", "grounding_lab/", "scripts/", "docs/")
REFERENCE_FILES = ("README.md", "manage.py", "gunicorn.conf.py", "Dockerfile", "pyproject.toml")


def tracked_files(root: Path) -> list[str]:
    """The repository's files as git knows them (a clean clone's view, not var/ or .venv)."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    return sorted(path for path in listed if (root / path).is_file())


def packages(files: list[str]) -> list[str]:
    """The app's packages (`grounding_app/<name>/`) and the top-level packages beside it."""
    found = set()
    for path in files:
        parts = path.split("/")
        if parts[-1] != "__init__.py":
            continue
        if len(parts) == 3 and parts[0] == "grounding_app":
            found.add(parts[1])
        elif len(parts) == 2 and parts[0] not in ("grounding_app", "tests"):
            found.add(parts[0])
    return sorted(found)


def unmapped(names: list[str], text: str) -> list[str]:
    """Packages a code map (the rows of a page's tables) does not mention as `name/`."""
    rows = "\n".join(line for line in text.splitlines() if line.lstrip().startswith("|"))
    return [name for name in names if not re.search(rf"(?<![\w-]){re.escape(name)}/", rows)]


def unlisted_pages(index: str, pages: list[str]) -> list[str]:
    """docs/*.md pages that docs/index.md does not link."""
    linked = set(re.findall(r"\]\(([\w.-]+\.md)(?:#[^)]*)?\)", index))
    return [page for page in pages if page != "index.md" and page not in linked]


def _without_code(text: str) -> str:
    """Markdown without fenced blocks and inline code, where link syntax is only text."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)
    return re.sub(r"`[^`\n]*`", "", text)


def anchors(text: str) -> set[str]:
    """The anchors GitHub gives a page's headings (lower case, punctuation dropped,
    spaces to hyphens, repeats numbered)."""
    seen: dict[str, int] = {}
    found = set()
    for heading in re.findall(r"^#{1,6}\s+(.+?)\s*#*\s*$", _fenced_out(text), flags=re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return found


def _fenced_out(text: str) -> str:
    return re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)


def _target_problem(root: Path, base: Path, target: str) -> str | None:
    """Why a relative link from a file in `base` names nothing (None when it names something)."""
    path_part, _, anchor = target.partition("#")
    path = (base / path_part).resolve() if path_part else None
    if path is not None and not path.exists():
        return "no such file"
    if path is not None and not path.is_relative_to(root):
        return "outside the repository (a clean clone has nothing there)"
    is_page = path is not None and path.suffix == ".md"
    if anchor and is_page and anchor not in anchors(path.read_text(encoding="utf-8")):
        return f"no heading with the anchor #{anchor}"
    return None


def broken_links(root: Path, path: str, text: str) -> list[str]:
    """Relative links and images of a Markdown file that name no file or heading."""
    problems = []
    targets = re.findall(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", _without_code(text))
    targets += re.findall(r"^\[[^\]]+\]:\s*(\S+)", _without_code(text), flags=re.M)
    for target in targets:
        if re.match(r"[a-z][a-z0-9+.-]*:", target):
            continue
        if target.startswith("#"):
            target = Path(path).name + target
        why = _target_problem(root, (root / path).parent, target)
        if why:
            problems.append(f"{path}: link {target}: {why}")
    return problems


def _defines(text: str, name: str) -> bool:
    last = name.split(".")[-1]
    pattern = rf"^\s*(?:async\s+)?(?:def|class)\s+{last}\b|^\s*{last}\s*(?::[^=\n]*)?="
    return re.search(pattern, text, flags=re.M) is not None


def _resolve(files: list[str], reference: str) -> list[str]:
    reference = reference.removeprefix("./")
    return [path for path in files if path == reference or path.endswith("/" + reference)]


def broken_references(root: Path, files: list[str], path: str, text: str) -> list[str]:
    """`file.py:name` references that name no function, class or assignment of that file,
    and `docs/page.md#anchor` or `file.py` mentions that name no file or heading."""
    problems = []
    for reference, name in re.findall(r"([\w][\w/.-]*\.py):([A-Za-z_0-9][\w.]*)", text):
        candidates = _resolve(files, reference)
        if not candidates:
            problems.append(f"{path}: {reference}:{name}: no such file")
        elif name.isdigit():
            problems.append(f"{path}: {reference}:{name}: a line number drifts; name the function")
        elif not any(_defines((root / c).read_text(encoding="utf-8"), name) for c in candidates):
            problems.append(f"{path}: {reference}:{name}: not defined there")
    for mention in re.findall(r"`((?:[\w.-]+/)+[\w.-]+\.(?:py|md))(?:#[\w-]+)?`", text):
        if not mention.startswith("../") and not _resolve(files, mention):
            problems.append(f"{path}: `{mention}`: no such file")
    for page, anchor in re.findall(r"(?<![\w/.])(docs/[\w.-]+\.md)#([\w-]+)", text):
        if (root / page).exists() and anchor not in anchors((root / page).read_text("utf-8")):
            problems.append(f"{path}: {page}#{anchor}: no such heading")
    return problems


def stray_images(files: list[str]) -> list[str]:
    """Images of the docs outside docs/img/."""
    return [
        path
        for path in files
        if path.startswith("docs/")
        and path.lower().endswith(IMAGE_SUFFIXES)
        and not path.startswith("docs/img/")
    ]


@pytest.fixture(scope="module")
def files() -> list[str]:
    return tracked_files(ROOT)


def _read(path: str) -> str:
    return (ROOT / path).read_text(encoding="utf-8")


def test_every_package_is_in_both_code_maps(files: list[str]) -> None:
    names = packages(files)
    assert {"engine", "traces", "verifiers", "common"} <= set(names)
    assert unmapped(names, _read("README.md")) == []
    assert unmapped(names, _read("docs/architecture.md")) == []
    assert unmapped(["engine", "newapp"], "| `grounding_app/engine/` | the engine |") == ["newapp"]
    assert unmapped(["lab"], "| `grounding_app/evaluation/lab_tools/` | x |") == ["lab"]
    url_only = "Connect at `/traces/connect/`.\n| `api/` | the API |"
    assert unmapped(["traces"], url_only) == ["traces"]


def test_every_docs_page_is_linked_from_the_index(files: list[str]) -> None:
    pages = [p.removeprefix("docs/") for p in files if re.fullmatch(r"docs/[\w.-]+\.md", p)]
    assert "traces.md" in pages
    assert unlisted_pages(_read("docs/index.md"), pages) == []
    assert unlisted_pages("[api](api.md) [x](index.md)", ["index.md", "api.md", "new.md"]) == [
        "new.md"
    ]


def _markdown(files: list[str]) -> list[str]:
    """Markdown files of the code and docs, and the top-level ones (README.md)."""
    return [
        p for p in files if p.endswith(".md") and (p.startswith(REFERENCE_ROOTS) or "/" not in p)
    ]


def test_relative_links_name_a_file_and_heading(files: list[str]) -> None:
    problems = [
        problem for path in _markdown(files) for problem in broken_links(ROOT, path, _read(path))
    ]
    assert problems == []
    planted = "See [x](docs/nothing.md), [y](docs/api.md#no-such-part) and ![i](docs/img/none.png)."
    assert len(broken_links(ROOT, "README.md", planted)) == 3
    assert broken_links(ROOT, "README.md", "[ok](docs/index.md#documentation) `[no](x.md)`") == []


def _referring(files: list[str]) -> list[str]:
    """Files whose references must name something: not the team's texts copied unchanged
    (docs/spec.md names files of the products it describes)."""
    return [
        path
        for path in files
        if (path.startswith(REFERENCE_ROOTS) or path in REFERENCE_FILES)
        and path.endswith((".py", ".md", ".toml", ".html", "Dockerfile"))
        and path not in TEAM_COPIES
    ]


def test_code_references_name_something(files: list[str]) -> None:
    problems = [
        problem
        for path in _referring(files)
        for problem in broken_references(ROOT, files, path, _read(path))
    ]
    assert problems == []
    planted = (
        "# See engine/pipeline.py:GroundingEngine, engine/pipeline.py:_gone and api/views.py:72;\n"
        "# `grounding_app/nowhere.py` and docs/operations.md#no-such-heading.\n"
    )
    found = broken_references(ROOT, files, "x.py", planted)
    assert [problem.split(": ")[1] for problem in found] == [
        "engine/pipeline.py:_gone",
        "api/views.py:72",
        "`grounding_app/nowhere.py`",
        "docs/operations.md#no-such-heading",
    ]


def test_images_live_in_one_folder(files: list[str]) -> None:
    assert stray_images(files) == []
    assert stray_images(["docs/img/a.png", "docs/b.png", "docs/x/c.svg", "static/i.png"]) == [
        "docs/b.png",
        "docs/x/c.svg",
    ]


# The team's contract and design sketch, copied into docs/ so that a clone stands alone.
SHARED = ROOT.parent / "shared"
TEAM_COPIES = {"docs/spec.md": "SPEC.md", "docs/design.md": "DESIGN.md"}


def copy_problems(path: str, original: str, text: str) -> list[str]:
    """Why a copy of the team's text does not say where it comes from, first thing."""
    note = text.split("\n\n", 1)[0]
    if not note.startswith("> The team's") or f"`../shared/{original}`" not in note:
        return [f"{path}: the first paragraph must be a '> The team's ...' note naming ../shared"]
    return []


def test_the_contract_lives_in_the_repository() -> None:
    for path, original in TEAM_COPIES.items():
        assert copy_problems(path, original, _read(path)) == []
    assert copy_problems("x.md", "SPEC.md", "# What the product must do\n") != []
    readme = _read("README.md").split("\n\n")[1]  # the first paragraph
    assert "](docs/spec.md)" in readme and "../shared" not in readme


@pytest.mark.skipif(
    not SHARED.is_dir(), reason="../shared (the team's checkout) is not beside the repository"
)
def test_the_copies_are_the_team_s_text_unchanged() -> None:
    for path, original in TEAM_COPIES.items():
        copied = _read(path).split("\n\n", 1)[1]
        assert copied == (SHARED / original).read_text(encoding="utf-8"), f"copy it to {path}"


# Settings: every name read from the environment is in docs/settings.md, and every name
# there is read somewhere. Reads are found in the app's Python (os.environ, os.getenv and
# settings.py's env_* helpers, with a literal name) and in scripts/ (`${NAME:-default}`).
ENV_HELPERS = {"env_bool", "env_int", "env_list"}
ENV_PYTHON = ("grounding_app/", "gunicorn.conf.py", "manage.py")


def _is_os_environ(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "environ"
        and isinstance(node.value, ast.Name)
        and node.value.id == "os"
    )


def _literal(node: ast.expr | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def python_env_reads(text: str) -> set[str]:
    """Names a Python file reads from the environment (setdefault sets, it is no read)."""
    found = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Call) and node.args and _literal(node.args[0]):
            function = node.func
            if (
                (isinstance(function, ast.Name) and function.id in ENV_HELPERS)
                or (isinstance(function, ast.Attribute) and function.attr == "getenv")
                or (
                    isinstance(function, ast.Attribute)
                    and function.attr == "get"
                    and _is_os_environ(function.value)
                )
            ):
                found.add(str(_literal(node.args[0])))
        elif (
            isinstance(node, ast.Subscript)
            and _is_os_environ(node.value)
            and isinstance(node.ctx, ast.Load)
            and _literal(node.slice)
        ):
            found.add(str(_literal(node.slice)))
    return found


def shell_env_reads(text: str) -> set[str]:
    return set(re.findall(r"\$\{([A-Z][A-Z0-9_]*):?-", text))


def env_reads(root: Path, files: list[str]) -> dict[str, list[str]]:
    """Name -> the files that read it."""
    reads: dict[str, list[str]] = {}
    for path in files:
        if path.endswith(".py") and path.startswith(ENV_PYTHON):
            names = python_env_reads((root / path).read_text(encoding="utf-8"))
        elif path.startswith("scripts/") and "." not in Path(path).name:
            names = shell_env_reads((root / path).read_text(encoding="utf-8"))
        else:
            continue
        for name in names:
            reads.setdefault(name, []).append(path)
    return reads


def documented_settings(text: str) -> set[str]:
    """The names in the first cell of docs/settings.md's table rows."""
    names = set()
    for line in text.splitlines():
        if line.startswith("|") and line.count("|") > 2:
            names |= set(re.findall(r"`([A-Z][A-Z0-9_]+)`", line.split("|")[1]))
    return names


def settings_drift(reads: dict[str, list[str]], documented: set[str]) -> list[str]:
    undocumented = [f"{name}: read in {', '.join(reads[name])}" for name in sorted(reads)]
    undocumented = [line for line in undocumented if line.split(":")[0] not in documented]
    unread = [f"{name}: documented, read nowhere" for name in sorted(documented - set(reads))]
    return undocumented + unread


def test_every_setting_read_is_documented_and_every_documented_one_read(
    files: list[str],
) -> None:
    reads = env_reads(ROOT, files)
    assert {"SECRET_KEY", "ADMIN_PASSWORD", "GROUNDING_JUDGE", "BATCH_WORKERS"} <= set(reads)
    documented = documented_settings(_read("docs/settings.md"))
    assert settings_drift(reads, documented) == [], "document them in docs/settings.md"
    renamed = _read("grounding_app/settings.py").replace('"API_RATE_WINDOW"', '"API_RATE_SECS"')
    planted = {**reads, "API_RATE_SECS": ["grounding_app/settings.py"]}
    del planted["API_RATE_WINDOW"]
    assert "API_RATE_SECS" in python_env_reads(renamed)
    assert settings_drift(planted, documented) == [
        "API_RATE_SECS: read in grounding_app/settings.py",
        "API_RATE_WINDOW: documented, read nowhere",
    ]
    found = python_env_reads(
        "import os\nfrom os import environ\n"
        "a = os.environ.get('A', '')\nb = os.environ['B']\nc = os.getenv('C')\n"
        "d = env_int('D', 1)\nos.environ.setdefault('E', '1')\nos.environ['F'] = '1'\n"
        "g = environ.get('HTTP_HOST')  # a WSGI environ, not the process's\n"
    )
    assert found == {"A", "B", "C", "D"}
    assert shell_env_reads('x="${ADDRESS:-127.0.0.1:8000}" y="${SECRET_KEY:-}" $HOME') == {
        "ADDRESS",
        "SECRET_KEY",
    }


def settings_attributes(text: str) -> set[str]:
    """`settings.NAME` attributes a module reads."""
    return {
        node.attr
        for node in ast.walk(ast.parse(text))
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "settings"
        and node.attr.isupper()
    }


def defined_settings(text: str) -> set[str]:
    """The names settings.py assigns (some inside a `try`), and Django's own."""
    from django.conf import global_settings

    assigned = {
        target.id
        for node in ast.walk(ast.parse(text))
        if isinstance(node, ast.Assign | ast.AnnAssign)
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        if isinstance(target, ast.Name)
    }
    return assigned | {name for name in dir(global_settings) if name.isupper()}


def test_every_setting_the_code_reads_is_defined(files: list[str]) -> None:
    """A setting renamed in settings.py but not where it is read fails here, not in
    production (tests that set it with the `settings` fixture would not notice)."""
    defined = defined_settings(_read("grounding_app/settings.py"))
    readers = [p for p in files if p.endswith(".py") and p.startswith(REFERENCE_ROOTS)]
    missing = {
        f"{path}: settings.{name}"
        for path in readers
        for name in settings_attributes(_read(path))
        if name not in defined
    }
    assert missing == set()
    renamed = _read("grounding_app/settings.py").replace("API_RATE_WINDOW =", "API_RATE_SECS =")
    assert "API_RATE_WINDOW" in settings_attributes(_read("grounding_app/limits.py"))
    assert "API_RATE_WINDOW" not in defined_settings(renamed)


# Blocks generated from the code (tests/docs_blocks.py) and what languages.md points at.


def test_the_generated_blocks_are_current() -> None:
    from tests.docs_blocks import replace_block, stale

    assert stale() == [], "run: .venv/bin/python -m tests.docs_blocks --write"
    with pytest.raises(ValueError, match="no generated block"):
        replace_block("# A page\n", "imports between packages", "x")


def undescribed_checks(names: list[str], page: str) -> list[str]:
    """Checks whose name docs/checks.md's prose never gives as `name`."""
    prose = "\n".join(line for line in _fenced_out(page).splitlines() if not line.startswith("|"))
    return [name for name in names if f"`{name}`" not in prose]


def test_every_check_is_described_and_listed_per_language() -> None:
    from grounding_app.engine.checks import all_checks

    names = [check.name for check in all_checks()]
    assert len(names) >= 9
    assert undescribed_checks(names, _read("docs/checks.md")) == []
    assert undescribed_checks(["role", "tense"], "A role check (`role`).\n") == ["tense"]


def engine_mentions(text: str) -> list[str]:
    """`x.py` or `dir/x.py` mentions (before a `:name`) that name no module of the engine,
    the app or the repository, read from grounding_app/engine/ first (a module that moved
    inside the engine leaves its old name behind)."""
    missing = []
    for mention in re.findall(r"`([\w/]+\.py)(?::\w+)?`", text):
        relative = mention.removeprefix("grounding_app/").removeprefix("engine/")
        if not any((ROOT / base / relative).is_file() for base in ENGINE_BASES):
            missing.append(mention)
    return missing


ENGINE_BASES = ("grounding_app/engine", "grounding_app", ".")


def test_the_languages_page_names_modules_that_exist() -> None:
    assert engine_mentions(_read("docs/languages.md")) == []
    assert engine_mentions("(`tokens.py`) (`lang/text.py`) (`reviews/folding.py`)") == ["tokens.py"]


# docs/verifier.md: a figure copied from a file of the repository is compared with it, and
# every table of measured figures says how they were measured (a command, or the test that
# measures them again) and when (a commit or a date).
VERIFIER_JSON = "grounding_app/engine/data/verifier/verifier.json"
FIGURES_JSON = "grounding_app/engine/data/figures.json"


def file_figures() -> list[tuple[str, list[str]]]:
    """(a pattern of the page whose groups are figures, what the file says they are)."""
    verifier = json.loads(_read(VERIFIER_JSON))
    report = json.loads(_read(FIGURES_JSON))["dev_realistic.jsonl"]["new"]["report"]
    measures = ("macro_ba", "macro_auc", "pooled_ba", "pooled_auc")
    return [
        (r"the bias moved by -0\.1165 logits to (\d\.\d+)", [f"{verifier['bias']:.4f}"]),
        (
            r"`missing_number_penalty` in `verifier\.json`, ([\d.]+) logits",
            [f"{verifier['missing_number_penalty']:g}"],
        ),
        (
            r"The shipped figures \(`engine/data/figures\.json`[^)]*\) are"
            r" (\d\.\d+) / (\d\.\d+) /\s+(\d\.\d+) / (\d\.\d+)",
            [f"{report[measure]:.4f}" for measure in measures],
        ),
    ]


def figure_drift(page: str, figures: list[tuple[str, list[str]]]) -> list[str]:
    problems = []
    for pattern, values in figures:
        found = re.findall(pattern, page)
        if len(found) != 1:
            problems.append(f"{pattern!r}: on the page {len(found)} times, not once")
            continue
        shown = list(found[0]) if isinstance(found[0], tuple) else [found[0]]
        if shown != values:
            problems.append(f"{pattern!r}: the page says {shown}, the file {values}")
    return problems


MEASURED_BY = re.compile(r"python -m \w|manage\.py \w|tests/[\w/]+\.py")
MEASURED_AT = re.compile(r"\b[0-9a-f]{7,40}\b|\b20\d\d-\d\d-\d\d\b")
FIGURE_CELL = re.compile(r"\|[^|\n]*\d\.\d{2,}[^|\n]*(?=\|)")


def unsourced_tables(page: str) -> list[str]:
    """Tables holding figures (a cell with a decimal) whose section, up to the paragraph
    after the table, names no command or test that measures them, or no commit or date."""
    problems = []
    for section in re.split(r"^#{1,6} ", page, flags=re.M):
        for table in re.finditer(r"(?:^\|.*\n)+", section, flags=re.M):
            if not FIGURE_CELL.search(table.group()):
                continue
            after = section[table.end() :].split("\n\n", 2)
            context = section[: table.end()] + "\n".join(after[:2])
            missing = [
                what
                for what, pattern in (("command", MEASURED_BY), ("commit or date", MEASURED_AT))
                if not pattern.search(context)
            ]
            if missing:
                first = table.group().splitlines()[0][:60]
                problems.append(f"{first}: names no {' and no '.join(missing)}")
    return problems


def test_the_verifier_page_s_figures_match_their_files_and_say_how_they_were_measured() -> None:
    page = _read("docs/verifier.md")
    assert figure_drift(page, file_figures()) == []
    assert unsourced_tables(page) == []
    planted = page.replace("logits to 0.6876", "logits to 0.6900")
    assert figure_drift(planted, file_figures()) == [
        r"'the bias moved by -0\\.1165 logits to (\\d\\.\\d+)': the page says ['0.6900'],"
        " the file ['0.6876']"
    ]
    table = "| half | macro BA |\n|---|---:|\n| report | 0.7884 |\n"
    assert unsourced_tables(f"## Figures\n\nOn dev_realistic:\n\n{table}") == [
        "| half | macro BA |: names no command and no commit or date"
    ]
    sourced = f"## Figures\n\nAt 4fb23d5, `manage.py grounding_eval dev.jsonl`:\n\n{table}"
    assert unsourced_tables(sourced) == []
