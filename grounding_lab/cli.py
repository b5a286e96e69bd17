"""Argument types shared by the evaluation commands."""

from __future__ import annotations

import argparse

from grounding_app.engine import parse_judge


def judge_spec(value: str) -> str:
    """'verifier', 'features' or 'verifier:DIR' where DIR holds trained weights."""
    try:
        _, directory = parse_judge(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc
    if directory is not None and not (directory / "model.safetensors").is_file():
        raise argparse.ArgumentTypeError(f"no verifier weights in {str(directory)!r}")
    return value


def add_judge_option(parser: argparse.ArgumentParser, verb: str) -> None:
    """`--judge`, repeatable: the judges to `verb` in one run (default: the engine's)."""
    parser.add_argument(
        "--judge",
        action="append",
        type=judge_spec,
        metavar="JUDGE",
        help=(
            f"judge(s) to {verb} in one run: verifier, features, or verifier:DIR"
            " (weights trained into DIR); default: the engine's default judge"
        ),
    )
