"""The long verifier's trainer runs end to end on a few pairs (slow; needs the `train`
extra: pip install -e '.[train]')."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("datasets")
pytest.importorskip("accelerate")

from grounding_lab import train_long_verifier


def _write(path: Path, n: int) -> None:
    rows = []
    for i in range(n):
        rows.append(
            {
                "id": f"frank:{i}",
                "source": "frank",
                "facts": [{"text": "Rome is the capital of Italy. It has 2.8 million people.",
                           "attributes": {}}],
                "claim": "Rome is the capital of Italy." if i % 2 else "Rome is in Spain.",
                "label": i % 2,
                "split": "train",
                "meta": {},
            }
        )  # fmt: skip
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


@pytest.mark.slow
def test_trains_checkpoints_and_saves_a_model(tmp_path: Path) -> None:
    _write(tmp_path / "train.jsonl", 16)
    _write(tmp_path / "dev.jsonl", 8)
    out = tmp_path / "run"
    args = ["--train", str(tmp_path / "train.jsonl"), "--dev", str(tmp_path / "dev.jsonl")]
    args += ["--out", str(out), "--max-length", "64", "--batch-size", "8", "--save-steps", "1"]
    train_long_verifier.main(args)
    assert (out / "model" / "model.safetensors").is_file()
    assert json.loads((out / "model" / "pairs.json").read_text())["pairs"] >= 16
    assert list((out / "checkpoints").glob("checkpoint-*"))
    assert "final dev_realistic" in (out / "train.log").read_text()
