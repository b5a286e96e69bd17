"""Evaluate the engine on JSONL files in the shared grounding schema."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from grounding_app.active_verifier.checker import checker
from grounding_app.engine import DEFAULT_CITATION_THRESHOLD, GroundingEngine
from grounding_app.formats.grounding_jsonl import DatasetError, read_examples
from grounding_lab.cli import add_judge_option
from grounding_lab.evaluation import (
    RecordingJudge,
    format_mistakes,
    format_table,
    predict,
    recording,
    sample_per_source,
    summarise,
)


class Command(BaseCommand):
    help = "Check each example's claim against its facts; print figures where labels exist."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("files", nargs="+", type=Path)
        parser.add_argument("--predictions", type=Path, help="write {id, supported, score} lines")
        parser.add_argument("--json", action="store_true", help="print the figures as JSON")
        parser.add_argument("--threshold", type=float, default=DEFAULT_CITATION_THRESHOLD)
        parser.add_argument("--limit", type=int, default=0, help="first N examples per file")
        parser.add_argument(
            "--per-source",
            type=int,
            default=0,
            help="a seeded random sample of at most N examples of each source (quick runs)",
        )
        parser.add_argument(
            "--errors",
            type=int,
            default=0,
            metavar="N",
            help=(
                "per source, print the N most confident false supports (highest scores)"
                " and false unsupporteds (lowest), with the weakest claim and its evidence"
            ),
        )
        add_judge_option(parser, "evaluate")

    def handle(self, *args: object, **options: Any) -> None:
        files: list[Path] = options["files"]
        for path in files:
            if not path.is_file():
                raise CommandError(f"no such file: {path}")
        judges: list[str] | None = options["judge"]
        engines = (
            {name: GroundingEngine.default(name) for name in judges}
            if judges
            else {"default": checker().engine()}
        )
        errors = int(options["errors"])
        if errors < 0:
            raise CommandError("--errors must be 0 or more")
        recorders: dict[str, RecordingJudge | None] = dict.fromkeys(engines)
        if errors:
            for name in engines:
                engines[name], recorders[name] = recording(engines[name])
        limit = int(options["limit"])
        threshold = float(options["threshold"])
        out_path: Path | None = options["predictions"]
        out = out_path.open("w", encoding="utf-8") if out_path else None
        report: dict[str, list[dict[str, object]]] = {}
        try:
            for path in files:
                try:
                    examples = list(read_examples(path))
                except DatasetError as exc:
                    raise CommandError(str(exc)) from exc
                if limit:
                    examples = examples[:limit]
                if options["per_source"]:
                    examples = sample_per_source(examples, int(options["per_source"]))
                for name, engine in engines.items():
                    label = path.name if len(engines) == 1 else f"{path.name} [{name}]"
                    predictions = []
                    for example in tqdm(examples, desc=label, file=sys.stderr, unit="ex"):
                        prediction = predict(engine.check, example, threshold, recorders[name])
                        predictions.append(prediction)
                        if out:
                            line = {
                                "id": prediction.id,
                                "supported": prediction.supported,
                                "score": round(prediction.score, 6),
                            }
                            if len(engines) > 1:
                                line["judge"] = name
                            out.write(json.dumps(line) + "\n")
                    groups = summarise(label, predictions)
                    report[label] = [g.as_dict() for g in groups]
                    if not options["json"]:
                        self.stdout.write(format_table(groups) + "\n")
                    if errors:
                        # With --json, stdout stays one JSON document.
                        stream = self.stderr if options["json"] else self.stdout
                        stream.write(f"Most confident mistakes, {label}\n")
                        stream.write(format_mistakes(predictions, errors) + "\n")
        finally:
            if out:
                out.close()
        if options["json"]:
            self.stdout.write(json.dumps(report, indent=2))
