"""Averaging two verifiers' weights: the share of each, and models that do not match."""

from __future__ import annotations

import pytest
import torch
from safetensors.torch import load_file, save_file

from grounding_lab.average_weights import average, main

A = {"w": torch.tensor([[0.0, 2.0]], dtype=torch.float16), "b": torch.tensor([4.0])}
B = {"w": torch.tensor([[2.0, 6.0]], dtype=torch.float16), "b": torch.tensor([0.0])}


@pytest.mark.parametrize(
    ("weight", "w", "b"),
    [
        (0.0, [[0.0, 2.0]], [4.0]),
        (0.5, [[1.0, 4.0]], [2.0]),
        (0.25, [[0.5, 3.0]], [3.0]),
        (1.0, [[2.0, 6.0]], [0.0]),
    ],
)
def test_the_mean_takes_the_given_share_of_the_second(weight, w, b) -> None:
    out = average(A, B, weight)
    assert out["w"].dtype == torch.float32
    assert out["w"].tolist() == w and out["b"].tolist() == b


@pytest.mark.parametrize(
    ("second", "weight", "message"),
    [
        ({"w": B["w"]}, 0.5, "differ in tensors: \\['b'\\]"),
        ({"w": B["w"], "b": torch.zeros(2)}, 0.5, "b: shape \\(1,\\) against \\(2,\\)"),
        (B, 1.5, "weight must lie in"),
    ],
)
def test_models_that_do_not_match_are_refused(second, weight, message) -> None:
    with pytest.raises(ValueError, match=message):
        average(A, second, weight)


def test_main_writes_the_mean_beside_nothing_else(tmp_path) -> None:
    for name, state in (("a", A), ("b", B)):
        (tmp_path / name).mkdir()
        save_file(state, str(tmp_path / name / "model.safetensors"))
    main([str(tmp_path / "a"), str(tmp_path / "b"), str(tmp_path / "soup")])
    soup = load_file(str(tmp_path / "soup" / "model.safetensors"))
    assert soup["w"].tolist() == [[1.0, 4.0]]
    assert [p.name for p in (tmp_path / "soup").iterdir()] == ["model.safetensors"]
