"""Reliability diagrams as inline SVG built as text: no plotting library, no Django, no
script, every piece of text escaped.

One chart for every page that shows one (a labeling project's agreement, the Verifier
page's held-back labels) and for the `calibration_report` files. Colours come from CSS
classes (`chart-*` in workbench.css), so the chart follows the light and dark themes and
needs no inline style (the CSP allows none); a file written on its own (`standalone`)
carries the light theme's colours in a `<style>` of its own instead.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape

from grounding_app.metrics import ReliabilityBin

WIDTH, HEIGHT = 560, 420
LEFT, RIGHT, TOP = 64, 20, 20
PLOT_H = 250  # the calibration plot
GAP = 34  # between the plot and the count strip
STRIP_H = 56  # claims per bin
PLOT_W = WIDTH - LEFT - RIGHT
TICKS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
SERIES_COLOURS = 4  # chart-series-0 .. -3 in workbench.css; more series reuse them
LEGEND_ROW = 18

# The light theme's colours, for a chart shown outside the workbench's pages.
STANDALONE_STYLE = (
    "<style>"
    "svg{font-family:system-ui,sans-serif;background:#fff}"
    ".chart-grid{stroke:#dfe3e9}.chart-axis{stroke:#5d6778}"
    ".chart-diagonal{stroke:#5d6778;stroke-width:1.5;stroke-dasharray:5 4}"
    ".chart-bar{fill:#1f9d5c47;stroke:#1f9d5c}.chart-count{fill:#2f5bea59}"
    ".chart-line{fill:none;stroke:var(--series,#2f5bea);stroke-width:2}"
    ".chart-dot{fill:var(--series,#2f5bea);stroke:#fff;stroke-width:2}"
    ".chart-swatch{fill:var(--series)}"
    ".chart-tick,.chart-count-label{fill:#5d6778;font-size:11px}"
    ".chart-label,.chart-legend-text{fill:#5d6778;font-size:12px}"
    ".chart-empty{fill:#5d6778;font-size:14px}"
    ".chart-series-0{--series:#2f5bea}.chart-series-1{--series:#b97f00}"
    ".chart-series-2{--series:#1f9d5c}.chart-series-3{--series:#e5483d}"
    "</style>"
)


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


def _frame(title: str, height: int, standalone: bool) -> list[str]:
    """The opening tag, the accessible name, the grid, the ticks and the diagonal."""
    strip_top = TOP + PLOT_H + GAP
    size = f' width="{WIDTH}" height="{height}"' if standalone else ""
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart chart-reliability" '
        f'viewBox="0 0 {WIDTH} {height}"{size} role="img" aria-labelledby="reliability-title '
        f'reliability-desc">',
        STANDALONE_STYLE if standalone else "",
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
    return out


def _bins(filled: Sequence[ReliabilityBin], bars: bool) -> list[str]:
    """Per filled bin its claim count in the strip (and, for a lone series, the observed
    rate as a bar), with the bin's figures as its hover title."""
    strip_top = TOP + PLOT_H + GAP
    most = max((b.count for b in filled), default=1)
    out = []
    for b in filled:
        x0, x1 = _x(b.low) + 2, _x(b.high) - 2
        count_h = max(2.0, b.count / most * STRIP_H)
        out += ['<g class="chart-bin">', f"<title>{escape(_bin_title(b))}</title>"]
        if bars:
            out.append(
                f'<rect x="{_num(x0)}" y="{_num(_y(b.supported_rate))}" '
                f'width="{_num(x1 - x0)}" height="{_num(b.supported_rate * PLOT_H)}" '
                'class="chart-bar"/>'
            )
        out += [
            f'<rect x="{_num(x0)}" y="{_num(strip_top + STRIP_H - count_h)}" '
            f'width="{_num(x1 - x0)}" height="{_num(count_h)}" class="chart-count"/>',
            _text(
                (x0 + x1) / 2, strip_top + STRIP_H - count_h - 4, str(b.count), "chart-count-label"
            ),
            "</g>",
        ]
    return out


def _series(bins: Sequence[ReliabilityBin], colour: str) -> list[str]:
    """One series' mean score against its observed rate, as a line through dots."""
    points = [(_x(b.mean_score), _y(b.supported_rate)) for b in bins if b.count]
    out = []
    if len(points) > 1:
        path = " ".join(f"{_num(x)},{_num(y)}" for x, y in points)
        out.append(f'<polyline points="{path}" class="chart-line{colour}"/>')
    out += [
        f'<circle cx="{_num(x)}" cy="{_num(y)}" r="4" class="chart-dot{colour}"/>'
        for x, y in points
    ]
    return out


def _legend(names: Sequence[str]) -> list[str]:
    """One row per series below the axis label, clear of any point of the plot."""
    out = []
    for i, name in enumerate(names):
        y = HEIGHT + 6 + LEGEND_ROW * i
        out.append(
            f'<rect x="{LEFT + 10}" y="{y}" width="12" height="12" '
            f'class="chart-swatch chart-series-{i % SERIES_COLOURS}"/>'
        )
        out.append(_text(LEFT + 28, y + 10, name, "chart-legend-text", "start"))
    return out


def _axes() -> list[str]:
    strip_top = TOP + PLOT_H + GAP
    return [
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
    ]


def reliability_svg(
    series: Mapping[str, Sequence[ReliabilityBin]],
    title: str = "Model score against human label",
    *,
    subtitles: Mapping[str, str] | None = None,
    legend: bool = True,
    standalone: bool = False,
) -> str:
    """A reliability diagram: per score bin, how often people said "supported".

    The dots are each bin's mean score against that rate, the dashed diagonal perfect
    calibration, the strip below the claims per bin (of the first series). A lone series
    also shows its rates as bars; several are told apart by colour. The legend names
    each series, followed by its subtitle where one is given (`legend=False`: the page
    has its own).
    """
    first = next(iter(series.values()), ())
    filled = [b for b in first if b.count]
    lone = len(series) == 1
    height = HEIGHT + (LEGEND_ROW * len(series) + 6 if legend else 0)
    out = _frame(title, height, standalone) + _bins(filled, bars=lone)
    if not filled:
        out.append(
            _text(
                LEFT + PLOT_W / 2,
                TOP + PLOT_H / 2,
                "No labeled claims with a score yet",
                "chart-empty",
            )
        )
    for i, bins in enumerate(series.values()):
        out += _series(bins, "" if lone else f" chart-series-{i % SERIES_COLOURS}")
    if legend:
        notes = subtitles or {}
        out += _legend([name + (f" — {notes[name]}" if name in notes else "") for name in series])
    out += _axes()
    out.append("</svg>")
    return "".join(out)
