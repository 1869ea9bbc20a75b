"""The spans a commit cuts when marks alone do not reach its target (DESIGN §5).

After the standing marks, a commit still over its target folds more: spans cut from the
stalest raw material, oldest first, until the target is reached. :func:`spans_to_cut` lists
them: the unit-aligned runs of raw entries (and of whole root tool folds, which a span may
swallow) before the fresh tail and outside pins, each cut on unit boundaries into pieces of
about ``span_cut_chars`` (a last piece under ``minFoldChars`` is left raw).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from pifold_core.folds import Forest
from pifold_core.options import EngineOptions
from pifold_core.projection import Projection
from pifold_core.transcript import Transcript


def spans_to_cut(
    transcript: Transcript,
    forest: Forest,
    projection: Projection,
    options: EngineOptions,
    is_pinned: Callable[[int, int], bool],
) -> Iterator[tuple[int, int]]:
    """The spans to cut, stalest first (see the module docstring). The runs are taken from
    the projection as it stands at the first step, so folding the spans as they come does
    not move the ones still to come."""
    runs = _raw_runs(transcript, forest, projection, is_pinned)
    for start, end in runs:
        yield from _pieces(transcript, options, start, end)


def _raw_runs(
    transcript: Transcript,
    forest: Forest,
    projection: Projection,
    is_pinned: Callable[[int, int], bool],
) -> list[tuple[int, int]]:
    """Unit-aligned runs of raw entries (and whole root tool folds) before the fresh tail."""
    fresh = transcript.fresh_start
    runs: list[tuple[int, int]] = []
    run_start: int | None = None
    run_end = 0
    for item in list(projection.items):
        if item.start >= fresh:
            break
        root = forest.root_containing(item.start)
        foldable = root is None or (root.kind == "tool" and root.handle not in forest.expanded)
        if foldable and not is_pinned(item.start, item.end):
            if run_start is None:
                run_start = item.start
            run_end = item.end
            continue
        if run_start is not None:
            runs.append((run_start, run_end))
        run_start = None
    if run_start is not None:
        runs.append((run_start, min(run_end, fresh)))
    aligned: list[tuple[int, int]] = []
    for start, end in runs:
        start, end = _align(transcript, start, end)
        if start < end:
            aligned.append((start, end))
    return aligned


def _align(transcript: Transcript, start: int, end: int) -> tuple[int, int]:
    """``[start, end)`` narrowed to the whole units inside it."""
    units, unit_of = transcript.units, transcript.unit_of
    first = units[unit_of[start]]
    if first.start != start:
        start = first.end
    if end > start:
        last = units[unit_of[end - 1]]
        if last.end != end:
            end = last.start
    return start, end


def _pieces(
    transcript: Transcript, options: EngineOptions, start: int, end: int
) -> list[tuple[int, int]]:
    """Cut ``[start, end)`` on unit boundaries into spans of about the cut size."""
    units, unit_of = transcript.units, transcript.unit_of
    pieces: list[tuple[int, int]] = []
    piece_start, chars = start, 0
    position = start
    while position < end:
        unit = units[unit_of[position]]
        chars += transcript.size_chars(unit.start, unit.end)
        position = unit.end
        if chars >= options.span_cut_chars:
            pieces.append((piece_start, position))
            piece_start, chars = position, 0
    if piece_start < end and chars >= options.thresholds.min_fold_chars:
        pieces.append((piece_start, end))
    return pieces


__all__ = ["spans_to_cut"]
