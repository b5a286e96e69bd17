"""`--judge` accepts a candidate verifier directory, and refuses what it cannot load."""

from __future__ import annotations

import argparse

import pytest

from grounding_app.engine import VERIFIER_DIR, GroundingEngine
from grounding_lab.cli import judge_spec


@pytest.mark.parametrize("value", ["verifier", "features", f"verifier:{VERIFIER_DIR}"])
def test_known_judges_pass(value: str) -> None:
    assert judge_spec(value) == value


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("oracle", "unknown judge"),
        ("features:somewhere", "unknown judge"),
        ("verifier:/no/such/dir", "no verifier weights"),
        ("verifier:", "no verifier weights"),
    ],
)
def test_bad_judges_are_refused_by_name(value: str, message: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match=message):
        judge_spec(value)


def test_engine_refuses_an_unknown_judge() -> None:
    with pytest.raises(ValueError, match="unknown judge 'oracle'"):
        GroundingEngine.default("oracle")


def test_a_verifier_directory_without_weights_fails_at_start_up(tmp_path) -> None:
    with pytest.raises(RuntimeError, match="verifier weights missing"):
        GroundingEngine.default(f"verifier:{tmp_path}")


@pytest.mark.parametrize(
    ("command", "verb"), [("grounding_bench", "time"), ("grounding_eval", "evaluate")]
)
def test_both_commands_take_the_one_judge_option(command: str, verb: str) -> None:
    from django.core.management import CommandError, load_command_class

    parser = load_command_class("grounding_lab", command).create_parser("manage.py", command)
    (option,) = [a for a in parser._actions if "--judge" in a.option_strings]
    assert option.type is judge_spec and option.help is not None
    assert option.help.startswith(f"judge(s) to {verb} in one run")
    with pytest.raises(CommandError, match="unknown judge 'oracle'"):
        parser.parse_args(["--judge", "oracle"])
