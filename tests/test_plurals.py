"""Counts on the pages read right in the singular too ("1 line", not "1 lines"): a
number printed before a plural noun goes through Django's `pluralize` (issue 32)."""

from __future__ import annotations

import re
from pathlib import Path

TEMPLATES = Path(__file__).resolve().parents[1] / "templates"
NOUNS = (
    "lines|answers|labels|claims|traces|spans|items|sources|facts|reviews|projects|keys|"
    "jobs|annotations|annotators|words|segments|citations"
)
# `{{ n }} lines`, `{{ x|length }} claims`: a count, then a bare plural noun.
BARE_PLURAL = re.compile(r"\{\{ ?[\w.]+(?:\|length)? ?\}\}\s+(?:" + NOUNS + r")\b")


def test_no_template_prints_a_count_before_a_bare_plural() -> None:
    found = [
        f"{path.relative_to(TEMPLATES)}: {match[0]}"
        for path in sorted(TEMPLATES.rglob("*.html"))
        for match in BARE_PLURAL.finditer(path.read_text(encoding="utf-8"))
    ]
    assert not found, "\n".join(found)
