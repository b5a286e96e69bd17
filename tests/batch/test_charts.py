"""The histogram SVG: one bar per bin, heights to scale, nothing inline-styled; drawn
for wide screens and for phones, whose labels stay readable (issue 44, item 19)."""

from __future__ import annotations

import re

import pytest

from grounding_app.batch.charts import histogram_svg


def test_bars_are_to_scale_and_titled() -> None:
    svg = histogram_svg([0, 1, 2, 0, 0, 0, 0, 0, 0, 4])
    assert "style=" not in svg
    found = re.findall(r'(<svg[^>]*class="chart (chart-\w+)".*?</svg>)', svg, flags=re.S)
    assert [kind for _, kind in found] == ["chart-wide", "chart-narrow"]
    for drawing, _ in found:
        heights = [
            float(h) for h in re.findall(r'class="chart-bin">.*?height="([0-9.]+)"', drawing)
        ]
        assert len(heights) == 10
        assert heights[9] == 2 * heights[2] == 4 * heights[1] and heights[0] == 0
        assert "score 0.9 to 1.0: 4 answers" in drawing
        assert "score 0.1 to 0.2: 1 answer<" in drawing


@pytest.mark.parametrize(("shown", "least"), [(1200, 10.0), (330, 9.5)])
def test_labels_stay_readable_at_the_width_shown(shown: int, least: float) -> None:
    # An 11-unit label shown at `shown` px: the drawing made for that width keeps it
    # near 11 px; the wide one on a phone made it 3.8 px.
    svg = histogram_svg([1] * 10)
    kind = "chart-wide" if shown > 600 else "chart-narrow"
    drawing = next(
        d
        for d, k in re.findall(r'(<svg[^>]*class="chart (chart-\w+)".*?</svg>)', svg, flags=re.S)
        if k == kind
    )
    width = float(re.search(r'viewBox="0 0 ([0-9.]+)', drawing)[1])  # type: ignore[index]
    assert 11 * shown / width >= least
    # Every other score is labelled on a phone: five labels and the two ends.
    ticks = re.findall(r'text-anchor="middle">([01]\.\d)</text>', drawing)
    assert ticks[0] == "0.0" and ticks[-1] == "1.0"


def test_an_empty_histogram_says_so() -> None:
    assert histogram_svg([0] * 10).count("no checked answers yet") == 2
