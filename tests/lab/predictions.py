"""A small dev file and a predictions file of several judges, for the lab's CLI tests."""

from __future__ import annotations

import json
from pathlib import Path


def write_files(
    directory: Path, scores: dict[str, dict[str, tuple[float, ...]]]
) -> tuple[Path, Path]:
    """(predictions, dev): per judge, per source, one score per example; the first half
    of each source's examples are unsupported, the rest supported."""
    rows: dict[str, dict] = {}
    predictions = []
    for judge, by_source in scores.items():
        for source, values in by_source.items():
            for i, score in enumerate(values):
                example_id = f"{source}{i}"
                rows[example_id] = {
                    "id": example_id,
                    "source": source,
                    "facts": [{"text": "A fact."}],
                    "claim": "A claim.",
                    "label": int(i >= len(values) // 2),
                }
                predictions.append({"id": example_id, "score": score, "judge": judge})
    data = directory / "dev.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows.values()))
    out = directory / "pred.jsonl"
    out.write_text("".join(json.dumps(p) + "\n" for p in predictions))
    return out, data
