"""Docs that cannot drift: the code map names every package, every page is reachable
from docs/index.md, links and `file.py:name` references name something, and the
images live in one folder.

Each rule is a pure function over texts and a list of files, so each test also plants a
violation and shows that the rule catches it.
"""

from __future__ import annotations

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
    return [
        path
        for path in files
        if (path.startswith(REFERENCE_ROOTS) or path in REFERENCE_FILES)
        and path.endswith((".py", ".md", ".toml", ".html", "Dockerfile"))
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
