"""Evaluate the engine on JSONL files in the shared grounding schema, or, with
`--whole-answers`, on whole answers (`grounding_lab/whole_answers.py`): each labelled
sentence scored inside its answer and alone (`grounding_lab/whole_answer_eval.py`)."""

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
from grounding_lab.whole_answer_eval import SentenceScore, figures, score_answer
from grounding_lab.whole_answer_eval import format_table as whole_table
from grounding_lab.whole_answers import WholeAnswer, read_whole_answers


class Command(BaseCommand):
    help = "Check each example's claim against its facts; print figures where labels exist."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("files", nargs="+", type=Path)
        parser.add_argument(
            "--predictions",
            type=Path,
            help=(
                "write {id, supported, score} lines; with --whole-answers {id, sentence,"
                " label, score_whole, score_alone (null: not checked), claims_whole, joined}"
            ),
        )
        parser.add_argument(
            "--whole-answers",
            action="store_true",
            help=(
                "the files are whole-answer sets (python -m grounding_lab.whole_answers):"
                " check each answer as one request and each labelled sentence alone"
            ),
        )
        parser.add_argument("--json", action="store_true", help="print the figures as JSON")
        parser.add_argument("--threshold", type=float, default=DEFAULT_CITATION_THRESHOLD)
        parser.add_argument(
            "--limit", type=int, default=0, help="first N examples (or answers) per file"
        )
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
        if options["whole_answers"]:
            if errors:
                raise CommandError("--errors does not apply to --whole-answers")
            self._whole_answers(files, engines, threshold, out_path, options)
            return
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

    def _whole_answers(
        self,
        files: list[Path],
        engines: dict[str, GroundingEngine],
        threshold: float,
        out_path: Path | None,
        options: dict[str, Any],
    ) -> None:
        """Each answer as one request, each labelled sentence alone: figures of both."""
        report: dict[str, object] = {}
        out = out_path.open("w", encoding="utf-8") if out_path else None
        try:
            for path in files:
                try:
                    answers: list[WholeAnswer] = read_whole_answers(path)
                except (ValueError, KeyError, TypeError) as exc:
                    raise CommandError(f"{path}: not a whole-answer set ({exc!r})") from exc
                if options["limit"]:
                    answers = answers[: int(options["limit"])]
                if options["per_source"]:
                    answers = sample_per_source(answers, int(options["per_source"]))
                for name, engine in engines.items():
                    label = path.name if len(engines) == 1 else f"{path.name} [{name}]"
                    rows: list[SentenceScore] = []
                    for answer in tqdm(answers, desc=label, file=sys.stderr, unit="answer"):
                        scored = score_answer(engine.check, answer, threshold)
                        rows.extend(scored)
                        if out:
                            judge = name if len(engines) > 1 else None
                            out.writelines(_prediction_line(row, judge) for row in scored)
                    found = figures(rows, threshold)
                    report[label] = {"threshold": threshold, "sources": found}
                    if not options["json"]:
                        self.stdout.write(f"{label}\n{whole_table(found, threshold)}\n")
        finally:
            if out:
                out.close()
        if options["json"]:
            self.stdout.write(json.dumps(report, indent=2))


def _prediction_line(row: SentenceScore, judge: str | None) -> str:
    """One labelled sentence's scores; null where no checked claim covers it."""

    def rounded(score: float | None) -> float | None:
        return None if score is None else round(score, 6)

    line: dict[str, object] = {
        "id": row.id,
        "sentence": row.index,
        "label": row.label,
        "score_whole": rounded(row.score_whole),
        "score_alone": rounded(row.score_alone),
        "claims_whole": row.claims_whole,
        "joined": row.joined,
    }
    if judge is not None:
        line["judge"] = judge
    return json.dumps(line) + "\n"
