"""Make a local Hugging Face sequence-classification directory a verifier the engine loads.

    manage.py package_verifier DIR --languages en,he [--fit LABELS.jsonl] [--out OUT]

Writes `verifier.json` (into OUT, a copy of DIR, when given, so a downloaded directory
stays as it came): the languages the model reads (claims in others go to word
matching), its input length, the neighbours shown around each passage, the engine's
penalties (the shipped verifier's) and a calibration. The model is loaded once as the
engine will load it (ONNX export, int8, the head's entailment class), so a directory the
engine cannot read fails here. With `--fit` the calibration is fitted on the labels:
temperature and bias on one pair per example, then the bias moved so that the engine's
macro-optimal threshold there is 0.6, the default `citationThreshold`; without it,
temperature 1 and bias 0, and `verifier.json` says so.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from grounding_app.engine import VERIFIER_MAX_LENGTH, CrossEncoderJudge
from grounding_app.formats.grounding_jsonl import DatasetError, Example, read_examples
from grounding_lab.fit_threshold import DEFAULT_THRESHOLD, bias_shift
from grounding_lab.package_verifier import (
    engine_optimum,
    has_a_source_with_both_classes,
    language_codes,
    pair_calibration,
    penalties,
)

# Positions a model reads at most (BERT-style encoders); longer inputs cost quadratically.
LONGEST = 512
# Less leaves no room for evidence beside a claim of up to 56 tokens.
SHORTEST = VERIFIER_MAX_LENGTH


def model_length(directory: Path) -> int:
    """The model's positions (config.json's max_position_embeddings), at most LONGEST."""
    config = json.loads((directory / "config.json").read_text())
    return min(int(config.get("max_position_embeddings") or LONGEST), LONGEST)


class Command(BaseCommand):
    help = "Write verifier.json for a Hugging Face sequence-classification directory."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("directory", type=Path, help="holds config.json, tokenizer, weights")
        parser.add_argument(
            "--languages",
            required=True,
            type=language_codes,
            help="the languages the model reads, e.g. en,he",
        )
        parser.add_argument("--fit", type=Path, metavar="LABELS.jsonl", help="fit calibration")
        parser.add_argument("--out", type=Path, help="copy DIR here and package the copy")
        parser.add_argument(
            "--max-length", type=int, help=f"input tokens (default: the model's, at most {LONGEST})"
        )
        parser.add_argument(
            "--neighbours",
            type=int,
            help="sentences shown around each passage (default: 3 from 384 tokens, else 0)",
        )
        parser.add_argument("--name", help="what responses call it (default: the folder's name)")
        parser.add_argument("--seed", type=int, default=13)

    def handle(self, *args: Any, **options: Any) -> None:
        source: Path = options["directory"]
        if not (source / "config.json").is_file():
            raise CommandError(
                f"{source} has no config.json: not a Hugging Face model directory (the"
                " bundled verifier and lab runs are packaged by grounding_lab/package_verifier)"
            )
        examples = self._labels(options["fit"]) if options["fit"] else []
        out: Path = options["out"] or source
        if out.resolve() != source.resolve():
            shutil.copytree(source, out, dirs_exist_ok=True)
        max_length = options["max_length"] or model_length(out)
        if not SHORTEST <= max_length <= LONGEST:
            raise CommandError(f"max_length {max_length}: must be {SHORTEST} to {LONGEST}")
        neighbours = options["neighbours"]
        if neighbours is None:
            neighbours = 3 if max_length >= 384 else 0
        config: dict[str, Any] = {
            "name": options["name"] or out.resolve().name,
            "max_length": max_length,
            "languages": options["languages"],
            "temperature": 1.0,
            "bias": 0.0,
            **penalties(),
            "evidence_neighbours": neighbours,
            "packaged_from": str(source),
        }
        self._write(out, config)
        try:
            judge = CrossEncoderJudge(out)
        except RuntimeError as exc:
            raise CommandError(str(exc)) from exc
        if not examples:
            config["calibrated_on"] = "nothing: temperature 1, bias 0 (no --fit)"
            self._write(out, config)
            self.stdout.write(
                f"{out}: not calibrated (temperature 1, bias 0): give --fit LABELS.jsonl"
                f" so that {DEFAULT_THRESHOLD} is its best threshold on your data"
            )
            return
        temperature, bias, pairs = pair_calibration(judge, examples, options["seed"])
        config.update(temperature=temperature, bias=bias)
        self._write(out, config)
        best = engine_optimum(out, examples)
        config["bias"] = bias + bias_shift(best, temperature)
        config["calibrated_on"] = f"{options['fit'].name}: {pairs} pairs"
        config["threshold_fitted_on"] = (
            f"{options['fit'].name}: macro optimum {best:.3f} -> {DEFAULT_THRESHOLD}"
        )
        self._write(out, config)
        self.stdout.write(
            f"{out}: temperature {temperature:.3f}, bias {config['bias']:.3f}"
            f" ({pairs} pairs; engine optimum {best:.3f} moved to {DEFAULT_THRESHOLD})"
        )

    def _labels(self, path: Path) -> list[Example]:
        try:
            examples = [e for e in read_examples(path) if e.label is not None]
        except (OSError, DatasetError) as exc:
            raise CommandError(str(exc)) from exc
        if not has_a_source_with_both_classes(examples):
            raise CommandError(
                f"{path}: {len(examples)} labelled examples, no source with both classes:"
                " calibration needs supported (1) and unsupported (0) examples of one source"
            )
        return examples

    def _write(self, directory: Path, config: dict[str, Any]) -> None:
        (directory / "verifier.json").write_text(json.dumps(config, indent=2) + "\n")
