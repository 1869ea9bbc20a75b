"""Editing pending marks: ``brief``, ``reboundary`` and ``unmark`` (DESIGN §7).

A pending mark lives outside the window, so every edit here is free: no byte moves until the
commit that applies the mark. Each function checks everything first and returns the new
mark; the engine logs and applies it only when nothing was wrong.
"""

from __future__ import annotations

from dataclasses import replace

from pifold_core.briefs import MAX_BRIEF_CHARS, BriefError, validate_supplied_brief
from pifold_core.entries import looks_like_path
from pifold_core.folds import Forest
from pifold_core.marks import Mark
from pifold_core.options import EngineOptions
from pifold_core.transcript import Transcript


class MarkEditError(ValueError):
    """A mark edit is invalid; the message names the argument and the rule."""


def find_mark(marks: dict[str, Mark], mark_id: object) -> Mark:
    """The pending mark named ``mark_id``."""
    if not isinstance(mark_id, str) or not mark_id.startswith("mark-"):
        raise MarkEditError(f"{mark_id!r} is not a mark id (mark ids look like mark-12)")
    mark = marks.get(mark_id)
    if mark is None:
        raise MarkEditError(f"there is no pending mark {mark_id} (it may have been applied)")
    return mark


def with_brief(mark: Mark, text: object) -> Mark:
    """The mark with a supplied brief, trimmed, held to the rule every agent brief meets."""
    if not isinstance(text, str) or not text.strip():
        raise MarkEditError("text must be a brief with content, not empty or only whitespace")
    if len(text.strip()) > MAX_BRIEF_CHARS:
        raise MarkEditError(
            f"text is {len(text.strip()):,} characters; a brief holds at most {MAX_BRIEF_CHARS:,}"
        )
    try:
        # What the commit's fold builder will demand of it: refused now, not at the commit.
        brief = validate_supplied_brief(text)
    except BriefError as error:
        raise MarkEditError(f"text: {error}") from None
    return replace(mark, brief=brief)


def _entry_index(transcript: Transcript, name: str, identifier: object) -> int:
    if not isinstance(identifier, str) or not identifier:
        raise MarkEditError(f"{name} must be an entry id")
    if looks_like_path(identifier):
        raise MarkEditError(f"{name} {identifier!r} looks like a path; marks take entry ids")
    index = transcript.index_of.get(identifier)
    if index is None:
        raise MarkEditError(f"{name}: there is no entry {identifier!r}")
    return index


def reboundaried(
    mark: Mark,
    start_id: object,
    end_id: object,
    transcript: Transcript,
    forest: Forest,
    options: EngineOptions,
) -> Mark:
    """The mark re-cut to ``[start_id, end_id]`` (inclusive), as a span over closed units."""
    start = _entry_index(transcript, "start", start_id)
    last = _entry_index(transcript, "end", end_id)
    if last < start:
        raise MarkEditError(f"end {end_id!r} comes before start {start_id!r}")
    end = last + 1
    units = transcript.units
    first_unit = units[transcript.unit_of[start]]
    if first_unit.start != start:
        call = transcript.entries[first_unit.start]
        raise MarkEditError(
            f"start {start_id!r} would split call {_call_name(call.tool_calls)} from its "
            f"result; start at {call.id!r} instead"
        )
    last_unit = units[transcript.unit_of[last]]
    if last_unit.end != end:
        raise MarkEditError(
            f"end {end_id!r} would split a call from its result; end at "
            f"{transcript.entries[last_unit.end - 1].id!r} instead"
        )
    if end > transcript.fresh_start:
        raise MarkEditError(
            f"end {end_id!r} reaches into the fresh tail (closed units only; the newest "
            f"foldable entry is {_newest_closed(transcript)})"
        )
    for root in forest.root_overlapping(start, end):
        if root.start < start or root.end > end:
            raise MarkEditError(
                f"the new range would overlap fold {root.handle} partially; include it whole "
                "or leave it out"
            )
        if (root.start, root.end) == (start, end):
            raise MarkEditError(f"the new range is exactly fold {root.handle}: nothing to fold")
    size = transcript.size_chars(start, end)
    if size < options.thresholds.min_fold_chars:
        raise MarkEditError(
            f"the new range holds {size:,} characters, under minFoldChars "
            f"({options.thresholds.min_fold_chars:,}): too small to fold"
        )
    return replace(mark, kind="span", start=start, end=end)


def _call_name(calls: tuple[object, ...]) -> str:
    names = [str(getattr(call, "id", "?")) for call in calls]
    return ", ".join(names) if names else "?"


def _newest_closed(transcript: Transcript) -> str:
    fresh = transcript.fresh_start
    return repr(transcript.entries[fresh - 1].id) if fresh > 0 else "none yet"
