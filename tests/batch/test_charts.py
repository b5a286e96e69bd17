"""The histogram SVG: one bar per bin, heights to scale, nothing inline-styled."""

from __future__ import annotations

import re

from grounding_app.batch.charts import histogram_svg


def test_bars_are_to_scale_and_titled() -> None:
    svg = histogram_svg([0, 1, 2, 0, 0, 0, 0, 0, 0, 4])
    heights = [float(h) for h in re.findall(r'class="chart-bin">.*?height="([0-9.]+)"', svg)]
    assert len(heights) == 10
    assert heights[9] == 2 * heights[2] == 4 * heights[1] and heights[0] == 0
    assert "score 0.9 to 1.0: 4 answers" in svg and "score 0.1 to 0.2: 1 answer<" in svg
    assert "style=" not in svg


def test_an_empty_histogram_says_so() -> None:
    assert "no checked answers yet" in histogram_svg([0] * 10)
