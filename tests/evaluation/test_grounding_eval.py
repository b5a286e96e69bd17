"""`grounding_eval --errors N`: the most confident mistakes per source, with evidence."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from grounding_app.engine import GroundingEngine

FACT = {
    "text": "Titanic was directed by James Cameron. The film was released in 1997."
    " It won eleven Academy Awards.",
    "attributes": {"author": "Wiki"},
}
# With the fake engine: f1 0.98 and f2 0.92 are false supports; f4 0.00003 is a false
# unsupported (threshold 0.6); f3 and f5 are right (f3 at 0.92: "The film" and "won eleven
# Academy Awards" are read together, the fact's two sentences that hold its words);
# n1's weakest sentence is wrong.
ROWS = [
    ("f1", "films", "Titanic was directed by James Cameron.", 0),
    ("f2", "films", "Titanic was released in 1997.", 0),
    ("f3", "films", "The film won eleven Academy Awards.", 1),
    ("f4", "films", "The ship sank in the North Atlantic.", 1),
    ("f5", "films", "Titanic was directed by Steven Spielberg.", 0),
    ("n1", "news", "Hello there. Titanic was directed by James Cameron. The ship sank.", 1),
]


@pytest.fixture
def data(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.jsonl"
    path.write_text(
        "".join(
            json.dumps({"id": i, "source": s, "facts": [FACT], "claim": c, "label": y}) + "\n"
            for i, s, c, y in ROWS
        )
    )
    return path


def _errors(data: Path, n: int, *extra: str) -> list[str]:
    out = StringIO()
    call_command("grounding_eval", str(data), "--errors", str(n), *extra, stdout=out)
    lines = out.getvalue().splitlines()
    return lines[lines.index("Most confident mistakes, tiny.jsonl") + 1 :]


def test_one_error_of_each_kind_per_source(fake_engine: GroundingEngine, data: Path) -> None:
    report = _errors(data, 1)
    assert [line for line in report if line.startswith("==")] == [
        "== films: false supports, highest scores ==",
        "== films: false unsupporteds, lowest scores ==",
        "== news: false unsupporteds, lowest scores ==",
    ]
    assert report[1].startswith("  score 0.982  label 0  f1")
    assert report[2] == "    claim:    Titanic was directed by James Cameron."
    assert report[3] == "    evidence: Titanic was directed by James Cameron."  # cited chunk
    assert report[5].startswith("  score 0.000  label 1  f4")
    assert report[6] == "    claim:    The ship sank in the North Atlantic."
    # No citation: the evidence is what the judge read, attributes first.
    assert report[7].startswith("    evidence: [author: Wiki] ")
    assert report[9].startswith("  score 0.00") and report[9].endswith("label 1  n1")
    assert report[10] == "    claim:    The ship sank."  # the weakest sentence


def test_more_errors_come_most_confident_first(fake_engine: GroundingEngine, data: Path) -> None:
    ids = [line.split()[-1] for line in _errors(data, 5) if line.startswith("  score")]
    assert ids == ["f1", "f2", "f4", "n1"]


def test_with_json_the_report_goes_to_stderr(
    fake_engine: GroundingEngine, data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    call_command("grounding_eval", str(data), "--errors", "1", "--json")
    captured = capsys.readouterr()
    assert json.loads(captured.out)["tiny.jsonl"][0]["n"] == len(ROWS)
    assert "== films: false supports, highest scores ==" in captured.err


def test_negative_errors_are_refused(fake_engine: GroundingEngine, data: Path) -> None:
    with pytest.raises(CommandError, match="--errors"):
        call_command("grounding_eval", str(data), "--errors", "-1")
