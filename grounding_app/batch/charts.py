"""The support-score histogram as inline SVG, styled by workbench.css's `chart-*` classes
(no inline style: the CSP allows none; the bars follow the light and dark themes)."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

WIDTH, HEIGHT = 960, 240
LEFT, RIGHT, TOP, BOTTOM = 52, 16, 16, 44


def _ticks(most: int) -> list[int]:
    """Up to five whole numbers from 0 to `most`, none twice (an axis of 0, 0, 1, 1, 2
    for two answers, or five zeros for none, says nothing)."""
    return sorted({round(most * step / 4) for step in range(5)})


def histogram_svg(counts: Sequence[int], *, title: str = "Support score per answer") -> str:
    """Bars of answers per score bin; bin i covers [i/n, (i+1)/n), the last includes 1."""
    bins = len(counts)
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    most = max(counts, default=0)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'role="img" aria-label="{escape(title)}"><title>{escape(title)}</title>',
    ]
    for value in _ticks(most):
        y = TOP + plot_h - (plot_h * value / most if most else 0)
        out.append(
            f'<line x1="{LEFT}" y1="{y:.1f}" x2="{LEFT + plot_w}" y2="{y:.1f}" class="chart-grid"/>'
            f'<text x="{LEFT - 8}" y="{y + 4:.1f}" class="chart-tick" text-anchor="end">'
            f"{value}</text>"
        )
    width = plot_w / bins if bins else plot_w
    for i, count in enumerate(counts):
        height = plot_h * count / most if most else 0
        x = LEFT + i * width
        low, high = i / bins, (i + 1) / bins
        label = f"score {low:.1f} to {high:.1f}: {count} answer{'s' if count != 1 else ''}"
        out.append(
            f'<g class="chart-bin"><title>{escape(label)}</title>'
            f'<rect x="{x + 2:.1f}" y="{TOP + plot_h - height:.1f}" width="{width - 4:.1f}" '
            f'height="{height:.1f}" class="chart-bar"/></g>'
        )
    for i in range(bins + 1):
        x = LEFT + i * width
        out.append(
            f'<text x="{x:.1f}" y="{TOP + plot_h + 16}" class="chart-tick" '
            f'text-anchor="middle">{i / bins if bins else 0:.1f}</text>'
        )
    out.append(
        f'<line x1="{LEFT}" y1="{TOP + plot_h}" x2="{LEFT + plot_w}" y2="{TOP + plot_h}" '
        'class="chart-axis"/>'
        f'<text x="{LEFT + plot_w / 2}" y="{HEIGHT - 6}" class="chart-label" '
        'text-anchor="middle">support score</text>'
    )
    if not most:
        out.append(
            f'<text x="{LEFT + plot_w / 2}" y="{TOP + plot_h / 2}" class="chart-empty" '
            'text-anchor="middle">no checked answers yet</text>'
        )
    out.append("</svg>")
    return "".join(out)
