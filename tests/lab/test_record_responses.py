"""The recorded set of check requests: built the same on every run, answered through the
API, and a changed answer named by its request."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grounding_app.api.models import ApiKey
from grounding_app.engine import GroundingEngine
from grounding_lab.record_responses import (
    build_requests,
    client_post,
    first_difference,
    responses,
)


def _write(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")


@pytest.fixture
def data(tmp_path: Path) -> Path:
    """A dev split of eight small examples, in the layout of /work/shared/data."""
    rows = [
        {
            "id": f"d{i}",
            "source": "s",
            "facts": [{"text": f"The river {i} runs past {i + 2} hills. It floods in spring."}],
            "claim": f"The river {i} runs past {i + 3} hills.",
            "label": i % 2,
        }
        for i in range(8)
    ]
    folder = tmp_path / "grounding"
    _write(folder / "dev.jsonl", rows)
    _write(folder / "dev_realistic.jsonl", rows[:2])
    _write(tmp_path / "hebrew" / "dev_hebrew.jsonl", rows[:1])
    return folder


def test_the_set_is_the_same_on_every_run(data: Path) -> None:
    requests = build_requests(3, data)
    assert [name for name, _ in requests][:2] == ["film", "merged-0"]
    assert len(requests) == 3 and requests == build_requests(3, data)


@pytest.mark.django_db
def test_recorded_answers_compare_equal_and_a_changed_judge_is_named(
    client, data: Path, fake_engine: GroundingEngine
) -> None:
    _, key = ApiKey.issue("recorder")
    post = client_post(client, key)
    requests = build_requests(3, data)
    recorded = list(responses(requests, post))
    assert all(json.loads(line)["status"] == 200 for line in recorded)
    assert first_difference(recorded, list(responses(requests, post))) is None

    fake_engine.judge.bias += 6.0
    difference = first_difference(recorded, list(responses(requests, post)))
    assert difference is not None and difference.startswith("request 1 (film) differs")
