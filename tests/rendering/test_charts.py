"""The one reliability diagram (rendering/charts.py) of the agreement page, the Verifier
page and calibration_report: themed by CSS classes, so dark mode gets its colours."""

from __future__ import annotations

import re

from grounding_app.metrics import ReliabilityBin, reliability_bins
from grounding_app.rendering.charts import reliability_svg

BINS = reliability_bins([1, 0, 1, 1], [0.9, 0.2, 0.7, 0.4], 5)
BEFORE = reliability_bins([1, 0, 1, 1], [0.6, 0.5, 0.3, 0.8], 5)


def test_on_a_page_no_colour_is_written_into_the_chart() -> None:
    svg = reliability_svg({"adapted": BINS, "before": BEFORE}, "Reliability on 4 labels")
    # No white background, no fill or stroke of its own: workbench.css colours it in
    # either theme, and nothing needs an inline style (the CSP allows none).
    assert re.search(r"#[0-9a-fA-F]{3,8}\b", svg) is None
    assert "style" not in svg and "fill=" not in svg and "stroke=" not in svg
    assert svg.startswith('<svg xmlns="http://www.w3.org/2000/svg" class="chart ')


def test_series_are_told_apart_by_class_and_named_in_the_legend() -> None:
    svg = reliability_svg(
        {"adapted": BINS, "before": BEFORE}, "t", subtitles={"before": "ECE 0.100"}
    )
    assert 'class="chart-line chart-series-0"' in svg
    assert 'class="chart-line chart-series-1"' in svg
    assert 'class="chart-dot chart-series-1"' in svg
    assert ">adapted</text>" in svg and ">before — ECE 0.100</text>" in svg
    assert 'class="chart-bar"' not in svg  # bars only for a lone series


def test_a_lone_series_shows_its_rates_as_bars_and_may_leave_the_legend_to_the_page() -> None:
    filled = [b for b in BINS if b.count]
    svg = reliability_svg({"model": BINS}, legend=False)
    assert svg.count('class="chart-bar"') == len(filled)
    assert svg.count('class="chart-dot"') == len(filled)
    assert "chart-legend-text" not in svg and "chart-series" not in svg


def test_a_chart_written_to_a_file_carries_its_own_colours() -> None:
    svg = reliability_svg({"a": BINS}, "t", standalone=True)
    assert svg.startswith("<svg") and 'width="560" height="444"' in svg  # one legend row
    assert "<style>" in svg and ".chart-series-0{--series:#2f5bea}" in svg


def test_no_scored_claim_says_so() -> None:
    svg = reliability_svg({"model": [ReliabilityBin(0.0, 1.0, 0, 0.0, 0.0)]}, legend=False)
    assert "No labeled claims with a score yet" in svg and "chart-dot" not in svg
