"""Reading the projection for people: its composition for the fold bar (DESIGN §10)."""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence

from pifold_core.composition import Category, Composition, FoldCounts, Reading
from pifold_core.folds import Fold, Forest
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
    for item in projection.items:
        if item.fold is not None:
            masses[_KIND_CATEGORY[forest.folds[item.fold].kind]] += item.tokens
            continue
        if item.start in pinned:
            masses[Category.PINNED] += item.tokens
            continue
        position = bisect.bisect_right(starts, item.start) - 1
        marked = position >= 0 and item.start < merged[position][1]
        masses[Category.MARKED if marked else Category.RAW] += item.tokens
    kinds = list(shown_fold_kinds(projection, forest).values())
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


def shown_fold_kinds(projection: Projection, forest: Forest) -> dict[str, str]:
    """The folds the window shows as placeholders (collapsed, not inside a collapsed
    ancestor), handle to kind: the one count the bar's ``N Folds``, ``/fold-status``'s
    visible folds and a commit's notice all use."""
    return {item.fold: forest.folds[item.fold].kind for item in projection.items if item.fold}


def consolidated_at_once(built: Sequence[Fold]) -> int:
    """Of the folds one commit ``built``, how many a consolidated fold it also built took in:
    built, but never shown on their own (what a commit's notice says beside ``N Folds``)."""
    parents = [fold for fold in built if fold.kind == "consolidated"]
    return sum(
        1
        for fold in built
        if any(
            parent is not fold and parent.start <= fold.start and fold.end <= parent.end
            for parent in parents
        )
    )
