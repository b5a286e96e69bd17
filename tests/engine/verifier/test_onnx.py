"""The verifier through ONNX Runtime: the torch model's scores, from cached graphs.

`dev_pairs.jsonl` holds 50 (claim, evidence) inputs exactly as the engine gave them to
the verifier: one per example of a seeded sample of `shared/data/grounding/
dev_realistic.jsonl` (5 per source, 25 supported, 25 not).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from grounding_app.engine.verifier.model import (
    VERIFIER_DIR,
    CrossEncoderJudge,
    encode_pairs,
    load_model,
)
from grounding_app.metrics import roc_auc

PAIRS = [
    json.loads(line)
    for line in (Path(__file__).with_name("dev_pairs.jsonl")).read_text().splitlines()
]
CLAIMS = [p["claim"] for p in PAIRS]
EVIDENCE = [p["evidence"] for p in PAIRS]
LABELS = [p["label"] for p in PAIRS]
# Measured with weights quantised to 7 bits (`reduce_range`): int8 moves a probability by
# at most 0.134 (mean 0.022) from the float model on these pairs, and ROC AUC by 0.002,
# with version 3 on an AMD EPYC without VNNI (without `reduce_range`: 0.194); by 0.094
# (mean 0.019, AUC unchanged) with version 4 on an Intel Xeon with VNNI. int8 kernels
# differ between CPUs.
INT8_MAX_DIFFERENCE = 0.15


@pytest.fixture(scope="module")
def int8() -> CrossEncoderJudge:
    return CrossEncoderJudge()


@pytest.fixture(scope="module")
def float32() -> CrossEncoderJudge:
    return CrossEncoderJudge(int8=False)


def _probabilities(judge: CrossEncoderJudge, logits: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-(logits + judge.config.bias) / judge.config.temperature))


@pytest.fixture(scope="module")
def reference(float32: CrossEncoderJudge) -> np.ndarray:
    """Probabilities of the torch float32 model, one pair at a time."""
    import torch

    model = load_model(VERIFIER_DIR / "model.safetensors")
    logits = []
    with torch.inference_mode():
        for claim, evidence in zip(CLAIMS, EVIDENCE, strict=True):
            ids, types, mask = encode_pairs(
                float32._tokenizer, [claim], [evidence], float32.config.max_length
            )
            output = model(
                input_ids=torch.from_numpy(ids),
                token_type_ids=torch.from_numpy(types),
                attention_mask=torch.from_numpy(mask),
            )
            logits.append(float(output.logits[0, 0]))
    return _probabilities(float32, np.array(logits))


def test_float_graph_gives_the_torch_scores(float32: CrossEncoderJudge, reference) -> None:
    ours = _probabilities(float32, float32.logits(CLAIMS, EVIDENCE))
    assert np.abs(ours - reference).max() < 1e-4


def test_int8_scores_stay_close_to_the_float_model(int8: CrossEncoderJudge, reference) -> None:
    ours = _probabilities(int8, int8.logits(CLAIMS, EVIDENCE))
    difference = np.abs(ours - reference)
    assert difference.max() < INT8_MAX_DIFFERENCE, f"max |p_int8 - p_fp32| {difference.max()}"
    auc_int8, auc_float = roc_auc(LABELS, list(ours)), roc_auc(LABELS, list(reference))
    assert auc_int8 is not None and auc_float is not None
    assert abs(auc_int8 - auc_float) < 0.01


def test_a_pair_scores_alike_alone_and_among_others(int8: CrossEncoderJudge) -> None:
    # Per-tensor activation scales made batch-mates move a score by up to 0.09 here.
    together = int8.logits(CLAIMS, EVIDENCE)
    alone = [int8.logits([c], [e])[0] for c, e in zip(CLAIMS, EVIDENCE, strict=True)]
    assert np.array_equal(together, alone)
    assert int8.logits([], []).shape == (0,)


def test_graphs_are_made_once_and_cached(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("GROUNDING_CACHE_DIR", str(tmp_path))
    first = CrossEncoderJudge()
    cache = tmp_path / "onnx"
    made = {path.name: path.stat().st_mtime_ns for path in cache.iterdir()}
    assert len(made) == 2
    assert [name for name in made if "-int8-ort" in name]
    second = CrossEncoderJudge()
    assert {path.name: path.stat().st_mtime_ns for path in cache.iterdir()} == made
    assert np.array_equal(
        first.logits(CLAIMS[:3], EVIDENCE[:3]), second.logits(CLAIMS[:3], EVIDENCE[:3])
    )
