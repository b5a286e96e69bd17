"""Run MiniLM (or a verifier brought as a directory) through ONNX Runtime: the same
numbers as torch, in about a fifth less time.

The ONNX graph is exported from the installed weights on first use and cached next to
the other run-time files (`var/onnx/`, or GROUNDING_CACHE_DIR), keyed by a hash of the
weights and the torch version, so a new model or torch never reuses a stale graph; an
int8 copy (`quantized`) is keyed by that graph and the ONNX Runtime version. Torch is
needed only to export. Export is local: nothing is downloaded. Writers race safely
(temp file, then rename).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import logging
import os
import tempfile
import threading
import warnings
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

INPUTS = ("input_ids", "attention_mask", "token_type_ids")
_export_lock = threading.Lock()


def cache_dir() -> Path:
    configured = os.environ.get("GROUNDING_CACHE_DIR")
    if configured:
        return Path(configured) / "onnx"
    return Path(__file__).resolve().parents[2] / "var" / "onnx"


def weights_key(weights: Path) -> str:
    """Hash of the weights and the installed torch (read from metadata: no import)."""
    digest = hashlib.sha256()
    with weights.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    digest.update(importlib.metadata.version("torch").encode())
    return digest.hexdigest()[:20]


def _cached(target: Path, make: Callable[[Path], None]) -> Path:
    """`target`, made by `make(temp path)` under a lock when missing, then renamed."""
    if target.is_file():
        return target
    with _export_lock:
        if target.is_file():
            return target
        target.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=target.parent, prefix=".tmp-") as scratch:
            temp = Path(scratch) / target.name
            make(temp)
            os.replace(temp, target)
    return target


def _traceable(model: Any, output: Callable[[Any], Any], token_types: bool) -> Any:
    """Positional (ids, mask[, types]) -> one tensor: the shape the exporter traces.

    Models without segments (RoBERTa, DistilBERT) take no token types at all.
    """
    import torch

    class Traceable(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids: Any, attention_mask: Any, *token_type_ids: Any) -> Any:
            types = dict(zip(INPUTS[2:], token_type_ids, strict=False))
            return output(self.model(input_ids=input_ids, attention_mask=attention_mask, **types))

    return Traceable().eval()


def exported(
    name: str,
    weights: Path,
    build: Callable[[], Any],
    output: Callable[[Any], Any],
    token_types: bool = True,
) -> Path:
    """The cached ONNX file for the model `build()` returns; exported if missing.

    `token_types=False`: the model takes no token types, and the graph has no such input.
    """

    def export(temp: Path) -> None:
        import torch

        model = build()
        # Any id the vocabulary holds (tiny test models have a few dozen).
        token = min(1000, int(getattr(getattr(model, "config", None), "vocab_size", 1001)) - 1)
        ids = torch.full((2, 8), token, dtype=torch.long)
        # A padded row, so no all-ones shortcut for the mask gets traced in.
        mask = torch.tensor([[1] * 8, [1] * 5 + [0] * 3], dtype=torch.long)
        inputs = INPUTS if token_types else INPUTS[:2]
        with warnings.catch_warnings():
            # The tracer notes Python branches on shapes; none of them depend on the
            # batch or the length for a BERT encoder (tests compare against torch).
            warnings.simplefilter("ignore")
            torch.onnx.export(
                _traceable(model, output, token_types),
                (ids, mask, torch.zeros_like(ids))[: len(inputs)],
                str(temp),
                input_names=list(inputs),
                output_names=["output"],
                dynamic_axes={key: {0: "batch", 1: "tokens"} for key in (*inputs, "output")},
                opset_version=17,
                dynamo=False,
            )

    return _cached(cache_dir() / f"{name}-{weights_key(weights)}.onnx", export)


_QUANTIZER = os.path.join("onnxruntime", "quantization", "")


def _not_quantizer_chatter(record: logging.LogRecord) -> bool:
    return record.levelno >= logging.WARNING or _QUANTIZER not in record.pathname


@contextmanager
def quiet_quantizer() -> Iterator[None]:
    """ONNX Runtime's quantiser reports each tensor it leaves alone (about 70 lines of
    "Quantization parameters for tensor ... not specified") on the root logger at INFO,
    which the server's start log shows; its warnings still pass."""
    root = logging.getLogger()
    root.addFilter(_not_quantizer_chatter)
    try:
        yield
    finally:
        root.removeFilter(_not_quantizer_chatter)


def quantized(graph: Path) -> Path:
    """The cached int8 copy of an exported graph: dynamic quantisation of its MatMuls.

    Weights are int8 per output channel: per tensor, mostly through the feed-forward
    output layers, the verifier's probabilities moved by up to 0.32 on 50 dev inputs,
    per channel by 0.08. Activations are quantised per tensor at run time, so a batch
    shares one scale: run one sequence at a time where scores must not depend on what
    else is in the batch.
    """

    def quantize(temp: Path) -> None:
        from onnxruntime.quantization import QuantType, quant_pre_process, quantize_dynamic

        # Shape inference and basic (portable) graph fusions, as ORT recommends first;
        # the symbolic pass fails on this graph and adds nothing for MatMuls.
        prepared = temp.with_suffix(".prepared.onnx")
        with quiet_quantizer():
            quant_pre_process(graph, prepared, skip_symbolic_shape=True)
            quantize_dynamic(
                prepared,
                temp,
                op_types_to_quantize=["MatMul", "Gemm"],
                per_channel=True,
                reduce_range=True,
                weight_type=QuantType.QInt8,
            )

    import onnxruntime

    return _cached(
        graph.with_name(f"{graph.stem}-int8-ort{onnxruntime.__version__}-reduced.onnx"), quantize
    )


T = TypeVar("T")


def cores() -> int:
    """The cores this process may run on (its affinity, where the system tells it)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def side_by_side(count: int, run: Callable[[int], T]) -> list[T]:
    """``run(0) ... run(count - 1)`` on every core at once, one each, results in order.

    For inputs run one at a time (int8 activations share one scale per batch, so an
    input alone gets its own result): a single input of a few hundred tokens keeps a
    second core of one run mostly waiting (300 verifier pairs of the largest request:
    6.8 s one after another on two cores' threads, 5.2 s two at a time on one each),
    and results are the same bit for bit (`tests/engine/test_speed_identity.py`). The
    pool lives for one call: one kept across a fork (gunicorn's workers) would wait on
    threads the child lacks.
    """
    workers = min(count, cores())
    if workers <= 1:
        return [run(i) for i in range(count)]
    with ThreadPoolExecutor(workers, thread_name_prefix="onnx") as pool:
        return list(pool.map(run, range(count)))


class OnnxBert:
    """One ONNX Runtime session; `run` takes the three int64 input arrays and feeds those
    the graph has (a model without segments has no token types)."""

    def __init__(self, path: Path, threads: int = 0) -> None:
        """``threads``: per run (0, ONNX Runtime's default: one per core)."""
        import onnxruntime

        self.path = path
        options = onnxruntime.SessionOptions()
        options.inter_op_num_threads = 1
        options.intra_op_num_threads = threads
        options.log_severity_level = 3
        # Threads wait for work asleep, not spinning: spinning takes the cores that other
        # workers and requests need (8 verifier pairs from the everyday request: 4.9
        # against 5.6 s, medians of 7 alternated rounds on 2 busy cores), and changes no
        # number.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self._session = onnxruntime.InferenceSession(
            str(path), options, providers=["CPUExecutionProvider"]
        )
        self._inputs = {node.name for node in self._session.get_inputs()}

    def run(self, input_ids: np.ndarray, attention_mask: np.ndarray, token_types: np.ndarray):
        feeds = dict(zip(INPUTS, (input_ids, attention_mask, token_types), strict=True))
        return self._session.run(None, {k: v for k, v in feeds.items() if k in self._inputs})[0]
