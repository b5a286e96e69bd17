"""Run MiniLM through ONNX Runtime: the same numbers as torch, in about a fifth less time.

The ONNX graph is exported from the installed weights on first use and cached next to
the other run-time files (`var/onnx/`, or GROUNDING_CACHE_DIR), keyed by a hash of the
weights and the torch version, so a new model or torch never reuses a stale graph.
Export is local: nothing is downloaded. Writers race safely (temp file, then rename).
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import threading
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

INPUTS = ("input_ids", "attention_mask", "token_type_ids")
_export_lock = threading.Lock()


def cache_dir() -> Path:
    configured = os.environ.get("GROUNDING_CACHE_DIR")
    if configured:
        return Path(configured) / "onnx"
    return Path(__file__).resolve().parents[2] / "var" / "onnx"


def weights_key(weights: Path) -> str:
    import torch

    digest = hashlib.sha256()
    with weights.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    digest.update(torch.__version__.encode())
    return digest.hexdigest()[:20]


def _traceable(model: Any, output: Callable[[Any], Any]) -> Any:
    """Positional (ids, mask, types) -> one tensor: the shape the exporter traces."""
    import torch

    class Traceable(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            return output(
                self.model(
                    input_ids=input_ids,
                    attention_mask=attention_mask,
                    token_type_ids=token_type_ids,
                )
            )

    return Traceable().eval()


def exported(
    name: str, weights: Path, build: Callable[[], Any], output: Callable[[Any], Any]
) -> Path:
    """The cached ONNX file for the model `build()` returns; exported if missing."""
    target = cache_dir() / f"{name}-{weights_key(weights)}.onnx"
    if target.is_file():
        return target
    with _export_lock:
        if target.is_file():
            return target
        import torch

        target.parent.mkdir(parents=True, exist_ok=True)
        ids = torch.full((2, 8), 1000, dtype=torch.long)
        # A padded row, so no all-ones shortcut for the mask gets traced in.
        mask = torch.tensor([[1] * 8, [1] * 5 + [0] * 3], dtype=torch.long)
        handle, temp = tempfile.mkstemp(dir=target.parent, suffix=".onnx.tmp")
        os.close(handle)
        try:
            with warnings.catch_warnings():
                # The tracer notes Python branches on shapes; none of them depend on the
                # batch or the length for a BERT encoder (tests compare against torch).
                warnings.simplefilter("ignore")
                torch.onnx.export(
                    _traceable(build(), output),
                    (ids, mask, torch.zeros_like(ids)),
                    temp,
                    input_names=list(INPUTS),
                    output_names=["output"],
                    dynamic_axes={key: {0: "batch", 1: "tokens"} for key in (*INPUTS, "output")},
                    opset_version=17,
                    dynamo=False,
                )
            os.replace(temp, target)
        finally:
            if os.path.exists(temp):
                os.unlink(temp)
    return target


class OnnxBert:
    """One ONNX Runtime session; `run` takes the three int64 input arrays."""

    def __init__(self, path: Path) -> None:
        import onnxruntime

        options = onnxruntime.SessionOptions()
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        self._session = onnxruntime.InferenceSession(
            str(path), options, providers=["CPUExecutionProvider"]
        )

    def run(self, input_ids: np.ndarray, attention_mask: np.ndarray, token_types: np.ndarray):
        feeds = dict(zip(INPUTS, (input_ids, attention_mask, token_types), strict=True))
        return self._session.run(None, feeds)[0]
