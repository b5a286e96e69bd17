"""What the engine writes to the server's start log while it builds its graphs."""

from __future__ import annotations

import logging

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from grounding_app.engine import encoders
from grounding_app.engine.onnx_models import quantized


def _graph(path) -> None:
    """x @ W (quantisable) and x @ y (B not constant: the quantiser reports skipping it)."""
    weight = numpy_helper.from_array(np.ones((8, 8), dtype=np.float32), "W")
    nodes = [
        helper.make_node("MatMul", ["x", "W"], ["h"], name="dense"),
        helper.make_node("MatMul", ["h", "y"], ["out"], name="scores"),
    ]
    graph = helper.make_graph(
        nodes,
        "tiny",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8]),
            helper.make_tensor_value_info("y", TensorProto.FLOAT, [8, 1]),
        ],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, [1, 1])],
        [weight],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(path))


def _quantizer_lines(records) -> list[str]:
    return [r.getMessage() for r in records if "quantization" in r.pathname]


def test_quantising_a_graph_writes_no_per_tensor_lines(tmp_path, caplog) -> None:
    from onnxruntime.quantization import quantize_dynamic

    _graph(tmp_path / "tiny.onnx")
    with caplog.at_level(logging.INFO):
        quantize_dynamic(tmp_path / "tiny.onnx", tmp_path / "plain.onnx")
    assert _quantizer_lines(caplog.records), "the quantiser no longer reports: drop the filter"
    caplog.clear()
    with caplog.at_level(logging.INFO):
        out = quantized(tmp_path / "tiny.onnx")
    assert out.is_file()
    assert _quantizer_lines(caplog.records) == []


def test_loading_weights_draws_no_progress_bar() -> None:
    from huggingface_hub.utils import are_progress_bars_disabled

    assert encoders.os.environ["HF_HUB_DISABLE_PROGRESS_BARS"] == "1"
    assert are_progress_bars_disabled()
