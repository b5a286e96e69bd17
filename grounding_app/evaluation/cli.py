"""Argument types shared by the evaluation commands."""

from __future__ import annotations

import argparse
from pathlib import Path


def judge_spec(value: str) -> str:
    """'verifier', 'features' or 'verifier:DIR' where DIR holds trained weights."""
    name, sep, directory = value.partition(":")
    if name == "features" and not sep:
        return value
    if name == "verifier":
        if sep and not (Path(directory) / "model.safetensors").is_file():
            raise argparse.ArgumentTypeError(f"no verifier weights in {directory!r}")
        return value
    raise argparse.ArgumentTypeError(
        f"unknown judge {value!r}: use 'verifier', 'features' or 'verifier:DIR'"
    )
