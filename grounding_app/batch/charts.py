"""The support-score histogram as inline SVG, styled by workbench.css's `chart-*` classes
(no inline style: the CSP allows none; the bars follow the light and dark themes).

An SVG's text scales with it: drawn 960 units wide and shown 330 px wide on a phone, its
11-unit labels were 4 px high. So the page gets two drawings of the same bars, one for
wide screens and one 360 units wide for phones (every other score labelled), and the
stylesheet shows one (`chart-wide`, `chart-narrow`); the hidden one is out of the
accessibility tree too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape


@dataclass(frozen=True)
class Frame:
    """A drawing's size and margins, and how often a score on its axis is labelled."""

    width: int
    height: int
    left: int
    right: int
    top: int
    bottom: int
    label_every: int  # label every n-th bin edge


WIDE = Frame(960, 240, 52, 16, 16, 44, 1)
NARROW = Frame(360, 220, 36, 12, 12, 40, 2)


def _ticks(most: int) -> list[int]:
    """Up to five whole numbers from 0 to `most`, none twice (an axis of 0, 0, 1, 1, 2
    for two answers, or five zeros for none, says nothing)."""
    return sorted({round(most * step / 4) for step in range(5)})


def _drawing(counts: Sequence[int], title: str, frame: Frame, kind: str) -> str:
    """Bars of answers per score bin; bin i covers [i/n, (i+1)/n), the last includes 1."""
    bins = len(counts)
    left, top = frame.left, frame.top
    plot_w = frame.width - frame.left - frame.right
    plot_h = frame.height - frame.top - frame.bottom
    most = max(counts, default=0)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart {kind}" '
        f'viewBox="0 0 {frame.width} {frame.height}" role="img" aria-label="{escape(title)}">'
        f"<title>{escape(title)}</title>",
    ]
    for value in _ticks(most):
        y = top + plot_h - (plot_h * value / most if most else 0)
        out.append(
            f'<line x1="{left}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}" class="chart-grid"/>'
            f'<text x="{left - 8}" y="{y + 4:.1f}" class="chart-tick" text-anchor="end">'
            f"{value}</text>"
        )
    width = plot_w / bins if bins else plot_w
    gap = 2 if frame.width > 480 else 1
    for i, count in enumerate(counts):
        height = plot_h * count / most if most else 0
        x = left + i * width
        low, high = i / bins, (i + 1) / bins
        label = f"score {low:.1f} to {high:.1f}: {count} answer{'s' if count != 1 else ''}"
        out.append(
            f'<g class="chart-bin"><title>{escape(label)}</title>'
            f'<rect x="{x + gap:.1f}" y="{top + plot_h - height:.1f}" '
            f'width="{width - 2 * gap:.1f}" height="{height:.1f}" class="chart-bar"/></g>'
        )
    for i in range(0, bins + 1, frame.label_every):
        x = left + i * width
        out.append(
            f'<text x="{x:.1f}" y="{top + plot_h + 16}" class="chart-tick" '
            f'text-anchor="middle">{i / bins if bins else 0:.1f}</text>'
        )
    out.append(
        f'<line x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" y2="{top + plot_h}" '
        'class="chart-axis"/>'
        f'<text x="{left + plot_w / 2}" y="{frame.height - 6}" class="chart-label" '
        'text-anchor="middle">support score</text>'
    )
    if not most:
        out.append(
            f'<text x="{left + plot_w / 2}" y="{top + plot_h / 2}" class="chart-empty" '
            'text-anchor="middle">no checked answers yet</text>'
        )
    out.append("</svg>")
    return "".join(out)


def histogram_svg(counts: Sequence[int], *, title: str = "Support score per answer") -> str:
    """The histogram drawn for wide screens and for phones; the page shows one."""
    return _drawing(counts, title, WIDE, "chart-wide") + _drawing(
        counts, title, NARROW, "chart-narrow"
    )
