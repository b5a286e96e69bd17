"""Trend charts as inline SVG, no Django: the unsupported-claim rate as bars and the mean
support score as a line, both on one 0-1 axis. Styled by workbench.css's `chart-*` and
`trend-*` classes (the CSP allows no inline style), so both follow the light and dark
themes. Two widths are drawn, a wide one and a narrow one for phones (CSS shows one), so
the labels keep their size at 375 px instead of shrinking with a wide viewBox.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape


@dataclass(frozen=True)
class Bar:
    label: str  # the bucket, as the axis shows it
    title: str  # what a pointer over it (and the table) says
    rate: float | None  # unsupported claims / claims, 0-1
    score: float | None  # mean support score, 0-1
    href: str = ""  # the drill-down, if any


@dataclass(frozen=True)
class Frame:
    width: int
    height: int
    left: int = 44
    right: int = 12
    top: int = 14
    bottom: int = 40
    labels_every: int = 1  # an axis label on every n-th bar

    @property
    def plot_w(self) -> float:
        return self.width - self.left - self.right

    @property
    def plot_h(self) -> float:
        return self.height - self.top - self.bottom

    def y(self, value: float) -> float:
        return self.top + self.plot_h * (1 - value)


def _axis(frame: Frame) -> list[str]:
    out = []
    for step in range(5):
        value = step / 4
        y = frame.y(value)
        out.append(
            f'<line x1="{frame.left}" y1="{y:.1f}" x2="{frame.left + frame.plot_w:.1f}" '
            f'y2="{y:.1f}" class="chart-grid"/><text x="{frame.left - 6}" y="{y + 4:.1f}" '
            f'class="chart-tick" text-anchor="end">{round(value * 100)}%</text>'
        )
    return out


def _bar(frame: Frame, i: int, width: float, bar: Bar) -> str:
    x = frame.left + i * width
    rate = bar.rate or 0.0
    height = frame.plot_h * rate
    shape = (
        f'<rect x="{x + width * 0.15:.1f}" y="{frame.y(rate):.1f}" width="{width * 0.7:.1f}" '
        f'height="{height:.1f}" class="trend-bar"/>'
        # The whole column is the target, so an empty day can be opened too.
        f'<rect x="{x:.1f}" y="{frame.top}" width="{width:.1f}" height="{frame.plot_h:.1f}" '
        'class="trend-hit"/>'
    )
    inner = f"<title>{escape(bar.title)}</title>{shape}"
    if bar.href:
        return (
            # Out of the tab order: the chart is hidden from assistive technology, and
            # the table under it links every day too.
            f'<a href="{escape(bar.href)}" class="trend-link" tabindex="-1">{inner}</a>'
        )
    return f'<g class="trend-col">{inner}</g>'


def _line(frame: Frame, width: float, bars: Sequence[Bar]) -> list[str]:
    """The score as dots, joined only between neighbouring buckets (an empty bucket
    breaks the line rather than drawing a level across it)."""
    runs: list[list[tuple[float, float]]] = [[]]
    for i, bar in enumerate(bars):
        if bar.score is None:
            runs.append([])
        else:
            runs[-1].append((frame.left + (i + 0.5) * width, frame.y(bar.score)))
    out = []
    for run in runs:
        if len(run) > 1:
            path = " ".join(f"{x:.1f},{y:.1f}" for x, y in run)
            out.append(f'<polyline points="{path}" class="chart-line"/>')
        out += [f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" class="chart-dot"/>' for x, y in run]
    return out


def trend_svg(bars: Sequence[Bar], frame: Frame, *, title: str, css: str = "") -> str:
    """Rate bars and the score line over the buckets, with every n-th bucket labelled."""
    width = frame.plot_w / max(1, len(bars))
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart trend-chart {css}" '
        f'viewBox="0 0 {frame.width} {frame.height}" role="img" aria-label="{escape(title)}">'
        f"<title>{escape(title)}</title>",
        *_axis(frame),
    ]
    out += [_bar(frame, i, width, bar) for i, bar in enumerate(bars)]
    out += _line(frame, width, bars)
    base = frame.top + frame.plot_h
    for i, bar in enumerate(bars):
        if (len(bars) - 1 - i) % frame.labels_every == 0:  # the latest bucket always
            x = frame.left + (i + 0.5) * width
            out.append(
                f'<text x="{x:.1f}" y="{base + 16}" class="chart-tick" text-anchor="middle">'
                f"{escape(bar.label)}</text>"
            )
    out.append(
        f'<line x1="{frame.left}" y1="{base}" x2="{frame.left + frame.plot_w:.1f}" y2="{base}" '
        'class="chart-axis"/>'
    )
    if all(bar.rate is None and bar.score is None for bar in bars):
        out.append(
            f'<text x="{frame.left + frame.plot_w / 2:.1f}" y="{frame.top + frame.plot_h / 2:.1f}" '
            'class="chart-empty" text-anchor="middle">no checked answers in this range</text>'
        )
    out.append("</svg>")
    return "".join(out)


def wide_and_narrow(bars: Sequence[Bar], *, title: str) -> str:
    """The chart twice: 960 wide for screens, 360 wide for phones (see the module)."""
    n = len(bars)
    every_wide = max(1, -(-n // 16))
    every_narrow = max(1, -(-n // 5))
    return trend_svg(
        bars, Frame(960, 260, labels_every=every_wide), title=title, css="chart-wide"
    ) + trend_svg(bars, Frame(360, 240, labels_every=every_narrow), title=title, css="chart-narrow")


@dataclass(frozen=True)
class Series:
    """One line of a comparison: a name and a value (0-1) per bucket, None for none."""

    name: str
    values: Sequence[float | None]


def _marker(x: float, y: float, k: int, title: str) -> str:
    """A circle for the first series, a square for the second: told apart without colour."""
    tip = f"<title>{escape(title)}</title>"
    if k == 0:
        return (
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3.5" class="series-dot series-0">{tip}</circle>'
        )
    return (
        f'<rect x="{x - 3.5:.1f}" y="{y - 3.5:.1f}" width="7" height="7" '
        f'class="series-dot series-{k}">{tip}</rect>'
    )


def _series_line(frame: Frame, width: float, labels: Sequence[str], k: int, s: Series) -> list[str]:
    """A series as markers, joined between neighbouring buckets (as `_line` joins the
    score): a bucket without a value breaks the line."""
    runs: list[list[tuple[float, float, str]]] = [[]]
    for i, value in enumerate(s.values):
        if value is None:
            runs.append([])
            continue
        title = f"{s.name}, {labels[i]}: {value:.1%}"
        runs[-1].append((frame.left + (i + 0.5) * width, frame.y(value), title))
    out = []
    for run in runs:
        if len(run) > 1:
            path = " ".join(f"{x:.1f},{y:.1f}" for x, y, _ in run)
            out.append(f'<polyline points="{path}" class="series-line series-{k}"/>')
        out += [_marker(x, y, k, title) for x, y, title in run]
    return out


def lines_svg(
    labels: Sequence[str], series: Sequence[Series], frame: Frame, *, title: str, css: str = ""
) -> str:
    """Two (or more) series as lines over the same buckets and 0-100 % axis."""
    width = frame.plot_w / max(1, len(labels))
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart series-chart {css}" '
        f'viewBox="0 0 {frame.width} {frame.height}" role="img" aria-label="{escape(title)}">'
        f"<title>{escape(title)}</title>",
        *_axis(frame),
    ]
    for k, each in enumerate(series):
        out += _series_line(frame, width, labels, k, each)
    base = frame.top + frame.plot_h
    for i, label in enumerate(labels):
        if (len(labels) - 1 - i) % frame.labels_every == 0:
            x = frame.left + (i + 0.5) * width
            out.append(
                f'<text x="{x:.1f}" y="{base + 16}" class="chart-tick" text-anchor="middle">'
                f"{escape(label)}</text>"
            )
    out.append(
        f'<line x1="{frame.left}" y1="{base}" x2="{frame.left + frame.plot_w:.1f}" y2="{base}" '
        'class="chart-axis"/>'
    )
    if all(v is None for each in series for v in each.values):
        out.append(
            f'<text x="{frame.left + frame.plot_w / 2:.1f}" y="{frame.top + frame.plot_h / 2:.1f}" '
            'class="chart-empty" text-anchor="middle">no checked answers in this range</text>'
        )
    out.append("</svg>")
    return "".join(out)


def lines_wide_and_narrow(labels: Sequence[str], series: Sequence[Series], *, title: str) -> str:
    """The comparison twice, as `wide_and_narrow` draws the trend."""
    n = len(labels)
    wide = Frame(960, 260, labels_every=max(1, -(-n // 16)))
    narrow = Frame(360, 240, labels_every=max(1, -(-n // 5)))
    return lines_svg(labels, series, wide, title=title, css="chart-wide") + lines_svg(
        labels, series, narrow, title=title, css="chart-narrow"
    )
