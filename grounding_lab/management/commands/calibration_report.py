"""Reliability diagram and expected calibration error of `grounding_eval` predictions."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from grounding_app.formats.grounding_jsonl import read_examples
from grounding_app.metrics import expected_calibration_error, reliability_bins
from grounding_app.rendering.charts import reliability_svg


class Command(BaseCommand):
    help = "Plot predicted support probability against labels; print ECE per judge."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("predictions", type=Path, help="grounding_eval --predictions output")
        parser.add_argument("data", type=Path, help="the labelled JSONL the predictions are for")
        parser.add_argument("--svg", type=Path)
        parser.add_argument("--png", type=Path, help="rendered with Debian's chromium")
        parser.add_argument("--bins", type=int, default=10)
        parser.add_argument("--title", default="Reliability on dev")

    def handle(self, *args: object, **options: Any) -> None:
        data: Path = options["data"]
        labels = {e.id: e.label for e in read_examples(data) if e.label is not None}
        scores: dict[str, tuple[list[int], list[float]]] = defaultdict(lambda: ([], []))
        path: Path = options["predictions"]
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if row["id"] in labels:
                ys, ps = scores[row.get("judge", "engine")]
                ys.append(int(labels[row["id"]] or 0))
                ps.append(float(row["score"]))
        if not scores:
            raise CommandError("no prediction matches a labelled example")
        n_bins = int(options["bins"])
        series = {name: reliability_bins(ys, ps, n_bins) for name, (ys, ps) in scores.items()}
        eces = {
            name: expected_calibration_error(ys, ps, n_bins) for name, (ys, ps) in scores.items()
        }
        for name, ece in eces.items():
            self.stdout.write(f"{name}: n={len(scores[name][0])} ECE={ece:.4f}")
        svg = reliability_svg(
            series,
            str(options["title"]),
            subtitles={k: f"ECE {v:.3f}" for k, v in eces.items()},
            standalone=True,
        )
        if options["svg"]:
            Path(options["svg"]).write_text(svg, encoding="utf-8")
        if options["png"]:
            self._png(svg, Path(options["png"]))

    @staticmethod
    def _png(svg: str, out: Path) -> None:
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path="/usr/bin/chromium",
                args=[
                    "--headless",
                    "--no-sandbox",
                    "--disable-gpu",
                    "--disable-background-networking",
                ],
            )
            page = browser.new_page()
            page.set_content(f"<body style='margin:0'>{svg}</body>")
            page.locator("svg").screenshot(path=str(out))
            browser.close()
