"""How long the fold bar takes to render a new composition.

Run from the repository root::

    .venv/bin/python benchmarks/bench_fold_bar.py

The bar repaints whenever the engine reports a new composition, so one render (layout,
suffix, colours, segments, strip) must stay under a millisecond, at full width and at 80
columns (where the suffix is fitted). Wall time per call is shown beside CPU time. Palette
construction is shown separately: it runs once per (map, start, end, background) and is
cached.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

from rich.style import Style
from textual.strip import Strip

from palettes import MAP_NAMES, PaletteSetting, palette_for
from palettes.assembly import _assemble
from pifold_core.composition import CATEGORY_ORDER, Composition, FoldCounts
from pifold_tui.fold_bar.layout import layout_bar
from pifold_tui.fold_bar.paint import BarColours, render_bar

BUDGET_MILLISECONDS = 1.0
"""The issue's limit for rendering the bar for a new composition."""

RUNS = 5_000
"""Renders per measurement; each one gets a composition it has not seen."""


def compositions(count: int) -> list[Composition]:
    """``count`` distinct compositions sweeping the fill from 0 to 100 %."""
    made = []
    for index in range(count):
        fill = (index * 997) % 200_001
        masses = {
            category: (fill * (position + 1)) // 21
            for position, category in enumerate(CATEGORY_ORDER)
        }
        made.append(
            Composition(
                budget=200_000,
                fill_tokens=fill,
                max_target=0.8,
                min_target=0.6,
                masses=masses,
                counts=FoldCounts(index % 5, index % 7, index % 3, index % 4, index % 2),
            )
        )
    return made


def per_call(
    action: Callable[[Composition], object], cases: list[Composition]
) -> tuple[list[float], float]:
    """Wall milliseconds per call of ``action`` (one timing per case), and the CPU
    milliseconds per call over the whole run."""
    timings = []
    cpu_started = time.process_time()
    for case in cases:
        started = time.perf_counter()
        action(case)
        timings.append((time.perf_counter() - started) * 1000.0)
    cpu = (time.process_time() - cpu_started) * 1000.0 / len(cases)
    return timings, cpu


def main() -> None:
    cases = compositions(RUNS)
    colours = BarColours.from_palette(palette_for(PaletteSetting(), "#121212"), "#E0E0E0")
    base = Style(color="#E0E0E0", bgcolor="#121212")

    def full_render(case: Composition) -> object:
        return Strip(render_bar(case, colours)).adjust_cell_length(128, base).simplify()

    def narrow_render(case: Composition) -> object:
        # At 80 columns the suffix is fitted: several forms may be built before one fits.
        return Strip(render_bar(case, colours, 80)).adjust_cell_length(80, base).simplify()

    measurements = {
        "layout only": per_call(layout_bar, cases),
        "render_bar (segments)": per_call(lambda case: render_bar(case, colours), cases),
        "render_bar + Strip": per_call(full_render, cases),
        "render_bar + Strip, 80 cols": per_call(narrow_render, cases),
    }
    print(f"{'measurement':<28}{'median ms':>11}{'p99 ms':>10}{'max ms':>10}{'CPU ms':>10}")
    for name, (timings, cpu) in measurements.items():
        ordered = sorted(timings)
        p99 = ordered[int(len(ordered) * 0.99)]
        print(
            f"{name:<28}{statistics.median(timings):>11.4f}{p99:>10.4f}{ordered[-1]:>10.4f}"
            f"{cpu:>10.4f}"
        )

    _assemble.cache_clear()
    started = time.perf_counter()
    for map_name in MAP_NAMES:
        palette_for(PaletteSetting(map_name), "#121212")
    cold = (time.perf_counter() - started) * 1000.0 / len(MAP_NAMES)
    print(f"{'palette build (cold, once)':<28}{cold:>11.1f}")

    verdict = max(
        statistics.median(measurements["render_bar + Strip"][0]),
        statistics.median(measurements["render_bar + Strip, 80 cols"][0]),
    )
    status = "OK" if verdict < BUDGET_MILLISECONDS else "TOO SLOW"
    print(
        f"\nrender for a new composition: {verdict:.4f} ms median "
        f"(limit {BUDGET_MILLISECONDS} ms): {status}"
    )


if __name__ == "__main__":
    main()
