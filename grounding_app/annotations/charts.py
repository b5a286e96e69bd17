"""Inline SVG charts built as text: no plotting library, no Django, no script.

Colours come from CSS classes (`chart-*` in workbench.css) so the charts follow the
light and dark themes, and nothing needs an inline style (the CSP allows none). Every
piece of text is escaped, though today it is all numbers and fixed words.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from grounding_app.metrics import ReliabilityBin

WIDTH, HEIGHT = 560, 420
LEFT, RIGHT, TOP = 64, 20, 20
PLOT_H = 250  # the calibration plot
GAP = 34  # between the plot and the count strip
STRIP_H = 56  # claims per bin
PLOT_W = WIDTH - LEFT - RIGHT
TICKS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)


def _num(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".") if value % 1 else str(int(value))


def _x(score: float) -> float:
    return LEFT + score * PLOT_W


def _y(fraction: float) -> float:
    return TOP + (1 - fraction) * PLOT_H


def _text(x: float, y: float, text: str, cls: str, anchor: str = "middle") -> str:
    return (
        f'<text x="{_num(x)}" y="{_num(y)}" class="{cls}" text-anchor="{anchor}">'
        f"{escape(text)}</text>"
    )


def _line(x1: float, y1: float, x2: float, y2: float, cls: str) -> str:
    return f'<line x1="{_num(x1)}" y1="{_num(y1)}" x2="{_num(x2)}" y2="{_num(y2)}" class="{cls}"/>'


def _bin_title(b: ReliabilityBin) -> str:
    claims = f"{b.count} claim{'s' if b.count != 1 else ''}"
    return (
        f"score {b.low:.1f} to {b.high:.1f}: {claims}, mean score {b.mean_score:.2f}, "
        f"{b.supported_rate * 100:.0f}% supported by people"
    )


def reliability_svg(
    bins: Sequence[ReliabilityBin], *, title: str = "Model score against human label"
) -> str:
    """A reliability diagram: per score bin, how often people said "supported".

    Bars show the observed rate, the dots the bin's mean score against that rate, the
    dashed diagonal perfect calibration; the strip below counts claims per bin.
    """
    strip_top = TOP + PLOT_H + GAP
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart chart-reliability" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-labelledby="reliability-title '
        f'reliability-desc">',
        f'<title id="reliability-title">{escape(title)}</title>',
        '<desc id="reliability-desc">For each band of model scores, the share of claims '
        "that people labeled supported; a calibrated model follows the diagonal.</desc>",
    ]
    for tick in TICKS:
        out.append(_line(LEFT, _y(tick), LEFT + PLOT_W, _y(tick), "chart-grid"))
        out.append(_text(LEFT - 8, _y(tick) + 4, f"{tick * 100:.0f}%", "chart-tick", "end"))
        out.append(_line(_x(tick), TOP, _x(tick), TOP + PLOT_H, "chart-grid"))
        out.append(_text(_x(tick), strip_top + STRIP_H + 18, _num(tick), "chart-tick"))
    out.append(_line(_x(0), _y(0), _x(1), _y(1), "chart-diagonal"))

    filled = [b for b in bins if b.count]
    if not filled:
        out.append(
            _text(
                LEFT + PLOT_W / 2,
                TOP + PLOT_H / 2,
                "No labeled claims with a score yet",
                "chart-empty",
            )
        )
    most = max((b.count for b in filled), default=1)
    points = []
    for b in filled:
        observed, mean = b.supported_rate, b.mean_score
        x0, x1 = _x(b.low) + 2, _x(b.high) - 2
        bar_h = observed * PLOT_H
        count_h = max(2.0, b.count / most * STRIP_H)
        points.append((_x(mean), _y(observed)))
        out += [
            '<g class="chart-bin">',
            f"<title>{escape(_bin_title(b))}</title>",
            f'<rect x="{_num(x0)}" y="{_num(_y(observed))}" width="{_num(x1 - x0)}" '
            f'height="{_num(bar_h)}" class="chart-bar"/>',
            f'<rect x="{_num(x0)}" y="{_num(strip_top + STRIP_H - count_h)}" '
            f'width="{_num(x1 - x0)}" height="{_num(count_h)}" class="chart-count"/>',
            _text(
                (x0 + x1) / 2, strip_top + STRIP_H - count_h - 4, str(b.count), "chart-count-label"
            ),
            "</g>",
        ]
    if len(points) > 1:
        path = " ".join(f"{_num(x)},{_num(y)}" for x, y in points)
        out.append(f'<polyline points="{path}" class="chart-line"/>')
    out += [f'<circle cx="{_num(x)}" cy="{_num(y)}" r="4" class="chart-dot"/>' for x, y in points]

    out += [
        _line(LEFT, TOP + PLOT_H, LEFT + PLOT_W, TOP + PLOT_H, "chart-axis"),
        _line(LEFT, strip_top + STRIP_H, LEFT + PLOT_W, strip_top + STRIP_H, "chart-axis"),
        _text(
            LEFT + PLOT_W / 2,
            HEIGHT - 4,
            "model score (probability the claim is supported)",
            "chart-label",
        ),
        f'<text class="chart-label" text-anchor="middle" '
        f'transform="translate(16 {_num(TOP + PLOT_H / 2)}) rotate(-90)">'
        f"{escape('people say supported')}</text>",
        _text(LEFT - 8, strip_top + STRIP_H / 2 + 4, "claims", "chart-tick", "end"),
        "</svg>",
    ]
    return "".join(out)
