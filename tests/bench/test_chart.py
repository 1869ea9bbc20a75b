"""The window chart, in the terminal and as SVG."""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree

from pifold_bench.chart import (
    ARM_COLOURS,
    FALLBACK_COLOUR,
    ChartPanel,
    columns,
    strip_rows,
    svg_chart,
    terminal_chart,
)
from pifold_bench.prepare import ARM_NAMES

SVG = "{http://www.w3.org/2000/svg}"


def test_columns_keep_the_largest_value_of_each_bucket() -> None:
    assert columns([1, 5, 2, 8, 3, 3], 3) == [5, 8, 3]
    assert columns([4, 2], 10) == [4, 2]


def test_strip_rows_fill_eighths_from_the_bottom() -> None:
    # Top 16 over two rows: 16 levels. 16 fills both rows, 8 the bottom one, 4 half of it.
    rows = strip_rows([16, 8, 4, 0], top=16, width=10, height=2)
    assert rows == ["█   ", "██▄ "]


def test_terminal_chart_draws_one_strip_per_arm_on_one_scale() -> None:
    panel = ChartPanel("t", 100, {"fold": [10, 80, 20], "none": [10, 80, 200]})
    lines = terminal_chart(panel, width=10, height=2)
    assert lines[0] == "t: window per request (full height = 200 tokens)"
    assert lines[1:] == [
        "     │   │ peak 80",
        "fold │▁▆▂│",
        "     │  █│ peak 200",
        "none │▁▆█│",
    ]


def test_svg_has_a_polyline_per_arm_with_a_point_per_request() -> None:
    panels = [
        ChartPanel("a/trace.jsonl", 1_000, {"fold": [100, 800, 200], "native": [100, 900, 50]}),
        ChartPanel("b & <c>", 500, {"fold": [10, 20]}),
    ]
    root = ElementTree.fromstring(svg_chart(panels, width=900, panel_height=200))
    assert root.get("height") == "400"
    lines = root.findall(f"{SVG}polyline")
    # Each panel draws its arms last to first, so the first arm ends on top.
    assert [line.get("data-arm") for line in lines] == ["native", "fold", "fold"]
    first = [tuple(map(float, point.split(","))) for point in str(lines[1].get("points")).split()]
    assert len(first) == 3
    across = [horizontal for horizontal, _ in first]
    heights = [vertical for _, vertical in first]
    assert across == sorted(across) and across[0] < across[-1]
    # Larger windows sit higher (smaller y); all inside the first panel.
    assert heights[1] < heights[2] < heights[0] <= 200
    texts = [element.text for element in root.iter(f"{SVG}text")]
    assert "b & <c>" in texts and "budget 1k" in texts


def test_every_arm_has_a_colour_of_its_own() -> None:
    colours = [ARM_COLOURS[name] for name in ARM_NAMES]
    assert len(set(colours)) == len(colours) and FALLBACK_COLOUR not in colours
