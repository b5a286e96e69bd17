"""The ONNX encoder gives sentence-transformers' vectors; its graph is cached by weights."""

from __future__ import annotations

import numpy as np
import pytest

from grounding_app.engine import onnx_models
from grounding_app.engine.encoders import MiniLMEncoder, bundled_minilm_path

TEXTS = [
    "Titanic was directed by James Cameron.",
    "It starred Kate Winslet and Leonardo DiCaprio, and won eleven Academy Awards.",
    "שלום עולם",
    "🎉",
    "",
    "word " * 400,  # past the 256-token limit: truncated as sentence-transformers does
]


@pytest.fixture(scope="module")
def encoder() -> MiniLMEncoder:
    return MiniLMEncoder()


def _torch_reference(texts: list[str]) -> np.ndarray:
    """Mean pooling over the mask and L2 norm, computed with torch directly."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    path = str(bundled_minilm_path())
    tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
    model = AutoModel.from_pretrained(path, local_files_only=True).eval()
    batch = tokenizer(texts, padding=True, truncation=True, max_length=256, return_tensors="pt")
    with torch.inference_mode():
        hidden = model(**batch).last_hidden_state
    mask = batch["attention_mask"].unsqueeze(-1).float()
    pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
    return torch.nn.functional.normalize(pooled, dim=1).numpy()


def test_vectors_match_the_torch_model(encoder: MiniLMEncoder) -> None:
    ours = encoder.encode(TEXTS)
    reference = _torch_reference(TEXTS)
    assert ours.shape == (len(TEXTS), 384)
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)
    assert np.min(np.sum(ours * reference, axis=1)) > 0.9999


def test_order_and_batching_do_not_change_vectors(encoder: MiniLMEncoder) -> None:
    alone = np.stack([encoder.encode([t])[0] for t in TEXTS])
    assert np.allclose(encoder.encode(TEXTS), alone, atol=1e-5)
    assert encoder.encode([]).shape == (0, 384)


def test_graph_is_exported_once_per_weights(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("GROUNDING_CACHE_DIR", str(tmp_path))
    first = MiniLMEncoder()
    files = list((tmp_path / "onnx").glob("minilm-*.onnx"))
    assert len(files) == 1
    stamp = files[0].stat().st_mtime_ns
    second = MiniLMEncoder()
    assert files[0].stat().st_mtime_ns == stamp
    assert not list((tmp_path / "onnx").glob("*.tmp"))
    assert np.allclose(first.encode(TEXTS[:2]), second.encode(TEXTS[:2]))


def test_cache_key_follows_the_weights(tmp_path) -> None:
    a, b = tmp_path / "a.safetensors", tmp_path / "b.safetensors"
    a.write_bytes(b"one")
    b.write_bytes(b"two")
    assert onnx_models.weights_key(a) != onnx_models.weights_key(b)
    assert onnx_models.weights_key(a) == onnx_models.weights_key(a)


@pytest.fixture(scope="module")
def int8_encoder() -> MiniLMEncoder:
    return MiniLMEncoder(int8=True)


def test_int8_vectors_stay_near_torch_and_ignore_their_batch(int8_encoder) -> None:
    ours = int8_encoder.encode(TEXTS)
    reference = _torch_reference(TEXTS)
    assert np.min(np.sum(ours * reference, axis=1)) > 0.98
    alone = np.stack([int8_encoder.encode([t])[0] for t in TEXTS])
    assert np.array_equal(int8_encoder.encode(TEXTS), alone)
