"""manage.py calibrate --config NAME --labels FILE [--apply]: a scope's calibration from
a labels file in the grounding JSONL schema (`claim`, `facts`, `label` 0/1).

Each labelled claim is checked by the active verifier on the engine's own scale (no
calibration, no LLM judge); its weakest checked claim's score and what scored it are
paired with its label, and a candidate is fitted per judge and guarded on held-back
labels (`calibration/fit.py`). `--apply` applies it when the guard passes; the Verifier
page shows it either way.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from grounding_app.active_verifier.checker import Checker, checker
from grounding_app.calibration.models import Calibration, Scope
from grounding_app.calibration.services import (
    CalibrationError,
    Labelled,
    apply,
    propose_calibration,
)
from grounding_app.engine import CheckRequest
from grounding_app.formats.grounding_jsonl import DatasetError, read_examples


class Command(BaseCommand):
    help = "Fit, guard and optionally apply a scope's calibration from a labels file."

    def add_arguments(self, parser: CommandParser) -> None:
        scope = parser.add_mutually_exclusive_group(required=True)
        scope.add_argument("--config", help="A grounding config: groundingConfigs/NAME:check.")
        scope.add_argument("--source", help="A trace source (service.name).")
        scope.add_argument("--label", help="A batch label.")
        parser.add_argument("--labels", type=Path, required=True, help="Grounding JSONL, labelled.")
        parser.add_argument("--apply", action="store_true", help="Apply it if the guard passes.")
        parser.add_argument("--json", action="store_true", help="Print the candidate as JSON.")

    def handle(self, *args: Any, **options: Any) -> None:
        kind, scope = next(
            (Scope(k), options[k]) for k in ("config", "source", "label") if options[k]
        )
        # The active verifier's engine, on its own scale: without an LLM judge.
        local = Checker(checker().engine(), escalation=None)
        verifier = local.engine().verifier_id
        if verifier is None:
            raise CommandError("The active judge is not a verifier: there is no scale to map.")
        labelled: list[Labelled] = []
        try:
            for example in read_examples(options["labels"]):
                if example.label is None:
                    continue
                request = CheckRequest(example.claim, example.facts, enable_claim_level_score=True)
                weakest = local.check(request).response.weakest()
                if weakest is not None and weakest.score is not None and weakest.checked_by:
                    labelled.append((weakest.score, weakest.checked_by, example.label))
        except (OSError, DatasetError) as exc:
            raise CommandError(str(exc)) from exc
        calibration = propose_calibration(
            kind, scope, verifier, labelled, f"file {options['labels'].name}"
        )
        if options["json"]:
            self.stdout.write(json.dumps({"name": calibration.name, "fits": calibration.fits}))
        else:
            self._report(calibration)
        if options["apply"]:
            try:
                apply(calibration, None)
            except CalibrationError as exc:
                raise CommandError(f"{calibration.name} not applied: {exc}") from exc
            self.stdout.write(f"Applied {calibration.name}.")

    def _report(self, calibration: Calibration) -> None:
        self.stdout.write(f"{calibration.name} (verifier {calibration.verifier})")
        for judge, fit in calibration.fits.items():
            line = f"  {judge}: {fit['labels']} labels ({fit['positives']} supported); "
            if fit["refused"]:
                line += f"not applicable: {fit['refused']}"
            else:
                line += (
                    f"held back, balanced accuracy {fit['ba_before']:.3f} → "
                    f"{fit['ba_after']:.3f} (95 % interval of the gain {fit['gain_low']:+.3f} "
                    f"to {fit['gain_high']:+.3f}); the guard passes"
                )
            self.stdout.write(line)
