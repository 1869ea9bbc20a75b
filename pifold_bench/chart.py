"""The window size of every request, per arm: in the terminal and as an SVG file.

This is the seeds' sawtooth: a folding arm climbs to its commit point and drops back to the
band's lower edge, compaction climbs to the budget and drops to its kept tail, an arm that
manages nothing climbs past the budget. The terminal chart draws one small strip per arm
(eighth-block columns, so each row holds eight levels); the SVG draws every arm as a
polyline over the same axes, with the budget and the band's edges as reference lines.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from xml.sax.saxutils import escape

from pifold_core.options import Thresholds

LEVELS = " ▁▂▃▄▅▆▇█"
"""A cell's fill from empty to full, in eighths."""

ARM_COLOURS = {
    "fold": "#0072B2",
    "fold-no-cold": "#E69F00",
    "fold-unbatched": "#56B4E9",
    "fold-immediate": "#009E73",
    "native": "#D55E00",
    "none": "#777777",
    "clip-only": "#CC79A7",
}
"""Okabe-Ito colours, distinguishable with the common colour-vision deficiencies."""

FALLBACK_COLOUR = "#F0E442"


@dataclass(frozen=True, slots=True)
class ChartPanel:
    """One trace's windows, per arm."""

    title: str
    """Shown above the panel."""
    budget: int
    """The serving budget, drawn as a reference line."""
    series: Mapping[str, Sequence[int]]
    """Window size of each request, by arm."""


def columns(values: Sequence[int], width: int) -> list[int]:
    """``values`` squeezed into at most ``width`` columns, each the largest value it covers."""
    if len(values) <= width:
        return list(values)
    return [
        max(values[column * len(values) // width : (column + 1) * len(values) // width])
        for column in range(width)
    ]


def strip_rows(values: Sequence[int], top: int, width: int, height: int) -> list[str]:
    """Rows (top first) of a column chart of ``values`` scaled so ``top`` fills the height."""
    cells = columns(values, width)
    levels = height * 8
    fills = [min(levels, round(value / top * levels)) if top > 0 else 0 for value in cells]
    rows: list[str] = []
    for row in range(height - 1, -1, -1):
        floor = row * 8
        rows.append("".join(LEVELS[max(0, min(8, fill - floor))] for fill in fills))
    return rows


def terminal_chart(panel: ChartPanel, width: int = 64, height: int = 3) -> list[str]:
    """Plain-text lines: one strip per arm, all on the same scale, with peak and budget."""
    top = max([panel.budget, *(max(values, default=0) for values in panel.series.values())])
    label_width = max((len(name) for name in panel.series), default=0)
    lines = [f"{panel.title}: window per request (full height = {top:,} tokens)"]
    for name, values in panel.series.items():
        rows = strip_rows(values, top, width, height)
        peak = max(values, default=0)
        for index, row in enumerate(rows):
            label = name if index == height - 1 else ""
            suffix = f" peak {peak:,}" if index == 0 else ""
            lines.append(f"{label:>{label_width}} │{row}│{suffix}")
    return lines


@dataclass(frozen=True, slots=True)
class _Axes:
    """Where a panel's plot area sits, and how requests and tokens map onto it."""

    left: float
    """x of the plot area's left edge."""
    top: float
    """y of its top edge."""
    width: float
    """Its width."""
    height: float
    """Its height."""
    ceiling: float
    """Tokens at the top edge."""

    def x_of(self, number: int, count: int) -> float:
        return self.left + number / max(1, count - 1) * self.width

    def y_of(self, tokens: float) -> float:
        return self.top + self.height - tokens / max(1.0, self.ceiling) * self.height


def svg_chart(panels: Sequence[ChartPanel], width: int = 900, panel_height: int = 260) -> str:
    """A standalone SVG document with one panel per trace."""
    margin_left, margin_right, margin_top, margin_bottom = 100, 150, 34, 34
    plot_width = width - margin_left - margin_right
    plot_height = panel_height - margin_top - margin_bottom
    thresholds = Thresholds()
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" '
        f'height="{panel_height * len(panels)}" viewBox="0 0 {width} '
        f'{panel_height * len(panels)}" font-family="sans-serif" font-size="11">',
        f'<rect width="{width}" height="{panel_height * len(panels)}" fill="#ffffff"/>',
    ]
    for index, panel in enumerate(panels):
        top_y = index * panel_height + margin_top
        requests = max((len(values) for values in panel.series.values()), default=0)
        peak = max((max(values, default=0) for values in panel.series.values()), default=0)
        axes = _Axes(margin_left, top_y, plot_width, plot_height, max(panel.budget, peak) * 1.05)

        parts.append(
            f'<text x="{margin_left}" y="{top_y - 12}" font-size="13" font-weight="bold">'
            f"{escape(panel.title)}</text>"
        )
        parts.append(
            f'<rect x="{margin_left}" y="{top_y}" width="{plot_width}" height="{plot_height}" '
            'fill="none" stroke="#bbbbbb"/>'
        )
        for share, label, dash in (
            (1.0, "budget", "6 3"),
            (thresholds.max_target, f"{thresholds.max_target:.0%}", "2 3"),
            (thresholds.min_target, f"{thresholds.min_target:.0%}", "2 3"),
        ):
            y = axes.y_of(share * panel.budget)
            parts.append(
                f'<line x1="{margin_left}" y1="{y:.1f}" x2="{margin_left + plot_width}" '
                f'y2="{y:.1f}" stroke="#999999" stroke-dasharray="{dash}"/>'
            )
            parts.append(
                f'<text x="{margin_left - 6}" y="{y + 4:.1f}" text-anchor="end" '
                f'fill="#555555">{escape(label)} {share * panel.budget / 1000:,.0f}k</text>'
            )
        parts.append(
            f'<text x="{margin_left + plot_width / 2:.1f}" y="{top_y + plot_height + 24}" '
            f'text-anchor="middle" fill="#555555">request (1 to {requests})</text>'
        )
        # Drawn last to first, so the first arm (fold) lies on top where lines coincide.
        for name, values in reversed(list(panel.series.items())):
            points = " ".join(
                f"{axes.x_of(number, len(values)):.1f},{axes.y_of(value):.1f}"
                for number, value in enumerate(values)
            )
            parts.append(
                f'<polyline data-arm="{escape(name)}" fill="none" '
                f'stroke="{ARM_COLOURS.get(name, FALLBACK_COLOUR)}" stroke-width="1.6" '
                f'stroke-linejoin="round" points="{points}"/>'
            )
        for position, name in enumerate(panel.series):
            colour = ARM_COLOURS.get(name, FALLBACK_COLOUR)
            legend_y = top_y + 14 + position * 18
            legend_x = margin_left + plot_width + 14
            parts.append(
                f'<line x1="{legend_x}" y1="{legend_y - 4}" x2="{legend_x + 22}" '
                f'y2="{legend_y - 4}" stroke="{colour}" stroke-width="3"/>'
            )
            parts.append(f'<text x="{legend_x + 28}" y="{legend_y}">{escape(name)}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
