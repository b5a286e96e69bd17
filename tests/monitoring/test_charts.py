"""The trend chart's SVG: bars to scale, the score line broken at empty buckets, labels
every n-th bucket, links only where a drill-down exists, and text escaped."""

from __future__ import annotations

import re

from grounding_app.monitoring.charts import Bar, Frame, trend_svg, wide_and_narrow

FRAME = Frame(200, 100, left=0, right=0, top=0, bottom=0)


def test_bars_are_to_scale_and_the_line_breaks_at_a_gap() -> None:
    bars = [
        Bar("a", "a", 0.5, 0.8),
        Bar("b", "b", None, None),
        Bar("c", "c", 0.25, 0.6),
        Bar("d", "d", 0.0, 0.4),
    ]
    svg = trend_svg(bars, FRAME, title="t")
    heights = [float(h) for h in re.findall(r'height="([\d.]+)" class="trend-bar"', svg)]
    assert heights == [50.0, 0.0, 25.0, 0.0]
    lines = re.findall(r'<polyline points="([^"]+)"', svg)
    assert lines == ["125.0,40.0 175.0,60.0"]  # c to d; a stands alone (a dot)
    assert svg.count('class="chart-dot"') == 3


def test_links_labels_and_escaping() -> None:
    bars = [
        Bar(f"{n}", f"<b>{n}</b>", 0.1, 0.9, href=f"/day/?d={n}&x=1" if n else "") for n in range(6)
    ]
    svg = trend_svg(bars, Frame(600, 200, labels_every=2), title="<t>")
    assert svg.count("<a href=") == 5 and "&amp;x=1" in svg and "<b>" not in svg
    assert 'tabindex="-1"' in svg  # out of the tab order: the table links every day
    labels = re.findall(r'text-anchor="middle">(\d)</text>', svg)
    assert labels == ["1", "3", "5"]  # every second, ending at the latest
    both = wide_and_narrow(bars, title="t")
    assert 'chart-wide"' in both and 'chart-narrow"' in both


def test_an_empty_range_says_so() -> None:
    assert "no checked answers in this range" in trend_svg(
        [Bar("a", "a", None, None)], FRAME, title="t"
    )
