"""Fine-tune the verifier in use on the team's labels and write it as a new verifier.

    manage.py adapt_verifier LABELS.jsonl --out DIR [--from VERIFIER_DIR] [--hold-out 0.2]
        [--replay N] [--epochs 1] [--max-minutes M]

LABELS.jsonl is any file in the shared grounding schema: the labeling export, the review
export (reviewer verdicts; the model's own are skipped), the training files. Part of the
labels is held back by document to calibrate the new verifier and to measure both; DIR
gets the weights, verifier.json and a MODEL_CARD.md with the figures. Details in
`grounding_app/verifiers/adapt/` and docs/verifier.md ("Adapt to your labels").
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from grounding_app.verifiers.adapt import DATA, AdaptError, Options, adapt, summary
from grounding_lab.package_verifier import language_codes


class Command(BaseCommand):
    help = "Fine-tune the verifier on labels (shared JSONL schema) into a new verifier DIR."
    # `call_command(..., progress=callable)` only (the Verifier page's Celery job): it hears
    # (phase, share of the run done); not an option of the command line.
    stealth_options = ("progress",)

    def add_arguments(self, parser: CommandParser) -> None:
        defaults = Options()
        parser.add_argument("labels", type=Path, help="labels in the shared JSONL schema")
        parser.add_argument("--out", type=Path, required=True, help="a new directory")
        parser.add_argument(
            "--from",
            dest="start",
            type=Path,
            help="the verifier to start from (default: GROUNDING_VERIFIER_DIR, the one in use)",
        )
        parser.add_argument(
            "--hold-out",
            type=float,
            default=defaults.hold_out,
            help="share of the labels held back, by document, to calibrate and measure",
        )
        parser.add_argument(
            "--replay",
            type=int,
            help="original training pairs mixed in (default: as many as the labels trained on)",
        )
        parser.add_argument("--train-file", type=Path, default=DATA / "train.jsonl")
        parser.add_argument("--epochs", type=float, default=defaults.epochs)
        parser.add_argument(
            "--max-minutes", type=float, help="stop training after M minutes (keeps the model)"
        )
        parser.add_argument("--batch-size", type=int, default=defaults.batch_size)
        parser.add_argument("--lr", type=float, default=defaults.lr)
        parser.add_argument("--name", help="what responses call it (default: DIR's name)")
        parser.add_argument(
            "--languages",
            type=language_codes,
            help="the languages the adapted model reads, e.g. en,he (default: the start's)",
        )
        parser.add_argument(
            "--calibration-prior",
            type=int,
            default=defaults.calibration_prior,
            help="held-back labels that weigh as much as the start's calibration (0: the"
            " labels alone)",
        )
        parser.add_argument("--seed", type=int, default=defaults.seed)

    def handle(self, *args: Any, **options: Any) -> None:
        start: Path = options["start"] or Path(settings.GROUNDING_VERIFIER_DIR)
        chosen = Options(
            hold_out=options["hold_out"],
            replay=options["replay"],
            epochs=options["epochs"],
            max_minutes=options["max_minutes"],
            batch_size=options["batch_size"],
            lr=options["lr"],
            seed=options["seed"],
            name=options["name"],
            languages=tuple(options["languages"]) if options["languages"] else None,
            train_file=options["train_file"],
            calibration_prior=options["calibration_prior"],
        )
        try:
            result = adapt(
                options["labels"],
                options["out"],
                start,
                chosen,
                self.stdout.write,
                options.get("progress"),
            )
        except AdaptError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(summary(result))
