"""Reliability diagrams as self-contained SVG: no plotting library, all text escaped."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape

from grounding_app.metrics import ReliabilityBin

PALETTE = ("#2563eb", "#dc2626", "#059669", "#d97706")


def reliability_svg(
    series: Mapping[str, Sequence[ReliabilityBin]],
    title: str,
    size: int = 520,
    subtitles: Mapping[str, str] | None = None,
) -> str:
    """Observed supported rate against mean predicted probability, one line per series.

    Bars under the plot show how many predictions fall into each bin (first series).
    """
    pad, top = 56, 48
    plot = size - pad - 24
    height = top + plot + 110

    def x(value: float) -> float:
        return pad + value * plot

    def y(value: float) -> float:
        return top + (1 - value) * plot

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {size} {height}" '
        f'width="{size}" height="{height}" font-family="sans-serif" font-size="12">',
        f'<rect width="{size}" height="{height}" fill="#ffffff"/>',
        f'<text x="{size / 2}" y="24" text-anchor="middle" font-size="15" '
        f'font-weight="bold">{escape(title)}</text>',
        f'<rect x="{pad}" y="{top}" width="{plot}" height="{plot}" fill="none" stroke="#9ca3af"/>',
    ]
    for tick in range(6):
        value = tick / 5
        out.append(
            f'<line x1="{x(value)}" y1="{top + plot}" x2="{x(value)}" y2="{top}" '
            'stroke="#e5e7eb"/>'
            f'<line x1="{pad}" y1="{y(value)}" x2="{pad + plot}" y2="{y(value)}" '
            'stroke="#e5e7eb"/>'
            f'<text x="{x(value)}" y="{top + plot + 16}" text-anchor="middle">{value:.1f}</text>'
            f'<text x="{pad - 8}" y="{y(value) + 4}" text-anchor="end">{value:.1f}</text>'
        )
    out.append(
        f'<line x1="{x(0)}" y1="{y(0)}" x2="{x(1)}" y2="{y(1)}" stroke="#6b7280" '
        'stroke-dasharray="4 4"/>'
        f'<text x="{pad + plot / 2}" y="{top + plot + 34}" text-anchor="middle">'
        "mean predicted probability of support</text>"
        f'<text x="16" y="{top + plot / 2}" text-anchor="middle" '
        f'transform="rotate(-90 16 {top + plot / 2})">observed share supported</text>'
    )
    first = next(iter(series.values()), [])
    most = max((b.count for b in first), default=0) or 1
    for b in first:
        bar = 40 * b.count / most
        out.append(
            f'<rect x="{x(b.low) + 1}" y="{top + plot + 80 - bar}" width="{plot / len(first) - 2}" '
            f'height="{bar}" fill="#cbd5e1"><title>{b.count} predictions</title></rect>'
        )
    out.append(
        f'<text x="{pad}" y="{top + plot + 96}">predictions per bin '
        f"({escape(next(iter(series), ''))})</text>"
    )
    for i, (name, bins) in enumerate(series.items()):
        colour = PALETTE[i % len(PALETTE)]
        points = [(x(b.mean_score), y(b.supported_rate)) for b in bins if b.count]
        path = " ".join(f"{px:.1f},{py:.1f}" for px, py in points)
        out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>')
        out.extend(
            f'<circle cx="{px:.1f}" cy="{py:.1f}" r="3.5" fill="{colour}"/>' for px, py in points
        )
        label = name + (f" — {subtitles[name]}" if subtitles and name in subtitles else "")
        out.append(
            f'<rect x="{pad + 10}" y="{top + 10 + 18 * i}" width="12" height="12" fill="{colour}"/>'
            f'<text x="{pad + 28}" y="{top + 20 + 18 * i}">{escape(label)}</text>'
        )
    out.append("</svg>")
    return "".join(out)
