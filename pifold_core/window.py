"""Reading the projection for people: its composition for the fold bar (DESIGN §10)."""

from __future__ import annotations

import bisect
from collections.abc import Iterable

from pifold_core.composition import Category, Composition, FoldCounts, Reading
from pifold_core.folds import Forest
from pifold_core.marks import Mark
from pifold_core.options import EngineOptions
from pifold_core.projection import Projection

_KIND_CATEGORY = {
    "consolidated": Category.CONSOLIDATED,
    "span": Category.SPAN,
    "tool": Category.TOOL,
}


def compose(
    projection: Projection,
    forest: Forest,
    marks: Iterable[Mark],
    pinned: set[int],
    options: EngineOptions,
    fill_tokens: int | None,
    reading: Reading,
    folding_stopped: bool = False,
) -> Composition:
    """Token mass per category and the suffix counts, in one pass over the visible items."""
    marks = list(marks)
    # Marks nest (a tool mark inside a span mark), so merge them into disjoint intervals.
    merged: list[tuple[int, int]] = []
    for start, end in sorted((mark.start, mark.end) for mark in marks):
        if merged and start < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    starts = [start for start, _ in merged]
    masses = dict.fromkeys(Category, 0)
    visible: dict[str, str] = {}
    for item in projection.items:
        if item.fold is not None:
            kind = forest.folds[item.fold].kind
            masses[_KIND_CATEGORY[kind]] += item.tokens
            visible[item.fold] = kind
            continue
        if item.start in pinned:
            masses[Category.PINNED] += item.tokens
            continue
        position = bisect.bisect_right(starts, item.start) - 1
        marked = position >= 0 and item.start < merged[position][1]
        masses[Category.MARKED if marked else Category.RAW] += item.tokens
    kinds = list(visible.values())
    counts = FoldCounts(
        consolidated=kinds.count("consolidated"),
        span=kinds.count("span"),
        tool=kinds.count("tool"),
        marks=len(marks),
        pins=len(pinned),
    )
    return Composition(
        budget=options.budget,
        fill_tokens=fill_tokens,
        max_target=options.thresholds.max_target,
        min_target=options.thresholds.min_target,
        masses=masses,
        counts=counts,
        reading=reading,
        folding_stopped=folding_stopped,
    )
