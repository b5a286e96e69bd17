"""Reliability diagrams as inline SVG built as text: no plotting library, no Django, no
script, every piece of text escaped.

One chart for every page that shows one (a labeling project's agreement, the Verifier
page's held-back labels) and for the `calibration_report` files. Colours come from CSS
classes (`chart-*` in workbench.css), so the chart follows the light and dark themes and
needs no inline style (the CSP allows none); a file written on its own (`standalone`)
carries the light theme's colours in a `<style>` of its own instead.

An SVG's text scales with it: drawn 560 units wide and shown 330 px wide on a phone, its
11-unit labels were 6 px high. So a page gets two drawings (`reliability_svgs`), one for
wide screens and one 340 units wide for phones, and the stylesheet shows one
(`chart-wide`, `chart-narrow`, as the batch histogram); each drawing names its own
title and description, as ids must not repeat on a page.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from html import escape

from grounding_app.metrics import ReliabilityBin


@dataclass(frozen=True)
class Frame:
    """A drawing's size and margins, and the words it has room for."""

    width: int
    left: int
    right: int
    top: int
    plot_h: int  # the calibration plot
    gap: int  # between the plot and the count strip
    strip_h: int  # claims per bin
    x_label: str
    kind: str  # its CSS class, and the suffix of its ids ("" for the only drawing)

    @property
    def plot_w(self) -> int:
        return self.width - self.left - self.right

    @property
    def strip_top(self) -> int:
        return self.top + self.plot_h + self.gap

    @property
    def height(self) -> int:
        """Below the strip: its score ticks and the axis label."""
        return self.strip_top + self.strip_h + 60

    def x(self, score: float) -> float:
        return self.left + score * self.plot_w

    def y(self, fraction: float) -> float:
        return self.top + (1 - fraction) * self.plot_h


WIDE = Frame(560, 64, 20, 20, 250, 34, 56, "model score (probability the claim is supported)", "")
NARROW = Frame(340, 60, 12, 14, 200, 30, 44, "model score (P supported)", "chart-narrow")
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


def _frame(f: Frame, title: str, height: int, standalone: bool) -> list[str]:
    """The opening tag, the accessible name, the grid, the ticks and the diagonal."""
    size = f' width="{f.width}" height="{height}"' if standalone else ""
    ids = f"-{f.kind.removeprefix('chart-')}" if f.kind else ""
    kind = f" {f.kind}" if f.kind else ""
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart chart-reliability{kind}" '
        f'viewBox="0 0 {f.width} {height}"{size} role="img" '
        f'aria-labelledby="reliability-title{ids} reliability-desc{ids}">',
        STANDALONE_STYLE if standalone else "",
        f'<title id="reliability-title{ids}">{escape(title)}</title>',
        f'<desc id="reliability-desc{ids}">For each band of model scores, the share of claims '
        "that people labeled supported; a calibrated model follows the diagonal.</desc>",
    ]
    for tick in TICKS:
        out.append(_line(f.left, f.y(tick), f.left + f.plot_w, f.y(tick), "chart-grid"))
        out.append(_text(f.left - 8, f.y(tick) + 4, f"{tick * 100:.0f}%", "chart-tick", "end"))
        out.append(_line(f.x(tick), f.top, f.x(tick), f.top + f.plot_h, "chart-grid"))
        out.append(_text(f.x(tick), f.strip_top + f.strip_h + 18, _num(tick), "chart-tick"))
    out.append(_line(f.x(0), f.y(0), f.x(1), f.y(1), "chart-diagonal"))
    return out


def _bins(f: Frame, filled: Sequence[ReliabilityBin], bars: bool) -> list[str]:
    """Per filled bin its claim count in the strip (and, for a lone series, the observed
    rate as a bar), with the bin's figures as its hover title."""
    strip_top = f.strip_top
    most = max((b.count for b in filled), default=1)
    out = []
    for b in filled:
        x0, x1 = f.x(b.low) + 2, f.x(b.high) - 2
        count_h = max(2.0, b.count / most * f.strip_h)
        out += ['<g class="chart-bin">', f"<title>{escape(_bin_title(b))}</title>"]
        if bars:
            out.append(
                f'<rect x="{_num(x0)}" y="{_num(f.y(b.supported_rate))}" '
                f'width="{_num(x1 - x0)}" height="{_num(b.supported_rate * f.plot_h)}" '
                'class="chart-bar"/>'
            )
        out += [
            f'<rect x="{_num(x0)}" y="{_num(strip_top + f.strip_h - count_h)}" '
            f'width="{_num(x1 - x0)}" height="{_num(count_h)}" class="chart-count"/>',
            _text(
                (x0 + x1) / 2,
                strip_top + f.strip_h - count_h - 4,
                str(b.count),
                "chart-count-label",
            ),
            "</g>",
        ]
    return out


def _series(f: Frame, bins: Sequence[ReliabilityBin], colour: str) -> list[str]:
    """One series' mean score against its observed rate, as a line through dots."""
    points = [(f.x(b.mean_score), f.y(b.supported_rate)) for b in bins if b.count]
    out = []
    if len(points) > 1:
        path = " ".join(f"{_num(x)},{_num(y)}" for x, y in points)
        out.append(f'<polyline points="{path}" class="chart-line{colour}"/>')
    out += [
        f'<circle cx="{_num(x)}" cy="{_num(y)}" r="4" class="chart-dot{colour}"/>'
        for x, y in points
    ]
    return out


def _legend(f: Frame, names: Sequence[str]) -> list[str]:
    """One row per series below the axis label, clear of any point of the plot."""
    out = []
    for i, name in enumerate(names):
        y = f.height + 6 + LEGEND_ROW * i
        out.append(
            f'<rect x="{f.left + 10}" y="{y}" width="12" height="12" '
            f'class="chart-swatch chart-series-{i % SERIES_COLOURS}"/>'
        )
        out.append(_text(f.left + 28, y + 10, name, "chart-legend-text", "start"))
    return out


def _axes(f: Frame) -> list[str]:
    bottom = f.strip_top + f.strip_h
    return [
        _line(f.left, f.top + f.plot_h, f.left + f.plot_w, f.top + f.plot_h, "chart-axis"),
        _line(f.left, bottom, f.left + f.plot_w, bottom, "chart-axis"),
        _text(f.left + f.plot_w / 2, f.height - 4, f.x_label, "chart-label"),
        f'<text class="chart-label" text-anchor="middle" '
        f'transform="translate(16 {_num(f.top + f.plot_h / 2)}) rotate(-90)">'
        f"{escape('people say supported')}</text>",
        _text(f.left - 8, f.strip_top + f.strip_h / 2 + 4, "claims", "chart-tick", "end"),
    ]


def reliability_svg(
    series: Mapping[str, Sequence[ReliabilityBin]],
    title: str = "Model score against human label",
    *,
    subtitles: Mapping[str, str] | None = None,
    legend: bool = True,
    standalone: bool = False,
    frame: Frame = WIDE,
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
    f = frame
    height = f.height + (LEGEND_ROW * len(series) + 6 if legend else 0)
    out = _frame(f, title, height, standalone) + _bins(f, filled, bars=lone)
    if not filled:
        out.append(
            _text(
                f.left + f.plot_w / 2,
                f.top + f.plot_h / 2,
                "No labeled claims with a score yet",
                "chart-empty",
            )
        )
    for i, bins in enumerate(series.values()):
        out += _series(f, bins, "" if lone else f" chart-series-{i % SERIES_COLOURS}")
    if legend:
        notes = subtitles or {}
        out += _legend(
            f, [name + (f" — {notes[name]}" if name in notes else "") for name in series]
        )
    out += _axes(f)
    out.append("</svg>")
    return "".join(out)


def reliability_svgs(series: Mapping[str, Sequence[ReliabilityBin]], title: str) -> str:
    """A lone series' diagram drawn for wide screens and for phones (its legend left to
    the page); the stylesheet shows one."""
    wide = replace(WIDE, kind="chart-wide")
    return "".join(
        reliability_svg(series, title, legend=False, frame=frame) for frame in (wide, NARROW)
    )
