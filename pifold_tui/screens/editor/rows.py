"""The rows of the window map: which rows exist, and what each says (no Textual here).

The map lists the transcript in order: every raw entry and every fold, with a fold's
interior (its children and raw leaves) shown beneath it when the tree has it open. Opening a
fold in the tree is a way of looking and moves nothing; by default the tree has open exactly
the folds the engine has expanded.

Building the row list costs no object per row and no text (:mod:`.row_list` holds rows as
flat columns): a row's words are made by :func:`describe_row` only when the row is drawn, so
a 20,000-entry session opens in the time it takes to walk its folds.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from pifold_core.engine import Engine
from pifold_core.folds import Fold
from pifold_core.marks import Mark
from pifold_tui.screens.editor.row_list import MapRow, RowList

PREVIEW_CHARS = 80
"""Characters of an entry's text shown in its row."""


@dataclass(frozen=True, slots=True)
class RowView:
    """What one row says, made when it is drawn."""

    identifier: str
    """The entry id or the fold handle."""
    kind: str
    """``user``, ``assistant``, ``tool result``, ``note`` or ``tool/span/consolidated fold``."""
    text: str
    """One line: the entry's text or the fold's brief."""
    tokens: int | None
    """Tokens the row costs in the window now; ``None`` when it is not in the window as
    itself (inside a collapsed fold)."""
    whole_tokens: int | None
    """Tokens an entry costs shown whole (what a pin holds); ``None`` for a fold."""
    source_bytes: int
    """Bytes of its exact source: the entry's record, or the fold's stored source."""
    state: str
    """raw, marked, clipped, withdrawn, pinned, folded or expanded, with qualifiers."""
    mark: str | None
    """The pending mark covering it, if any (the smallest, when marks nest)."""
    openable: bool
    """A fold with something beneath it in the tree."""
    opened: bool
    """The tree shows its interior now."""


class MarkIndex:
    """Pending marks sorted by start, to find the marks covering a row quickly."""

    def __init__(self, marks: Iterable[Mark]) -> None:
        self.marks = sorted(marks, key=lambda mark: (mark.start, mark.end, mark.id))
        self.starts = [mark.start for mark in self.marks]

    def covering(self, start: int, end: int) -> list[Mark]:
        """Marks that hold all of ``[start, end)``, smallest first."""
        position = bisect.bisect_right(self.starts, start)
        found = [mark for mark in self.marks[:position] if mark.end >= end]
        return sorted(found, key=lambda mark: (mark.end - mark.start, mark.id))


def tree_is_open(engine: Engine, handle: str, overrides: Mapping[str, bool]) -> bool:
    """Whether the tree shows ``handle``'s interior: the user's choice, else expanded."""
    chosen = overrides.get(handle)
    return chosen if chosen is not None else handle in engine.view.forest.expanded


def build_rows(engine: Engine, overrides: Mapping[str, bool]) -> RowList:
    """Every row of the map in transcript order, folds opened as ``overrides`` says."""
    rows = RowList()
    folds = engine.view.forest.folds

    def walk(start: int, end: int, children: Iterable[Fold], depth: int) -> None:
        position = start
        for child in children:
            rows.add_entries(depth, position, child.start)
            rows.append(MapRow(depth, child.start, child.handle))
            if tree_is_open(engine, child.handle, overrides):
                walk(child.start, child.end, (folds[h] for h in child.children), depth + 1)
            position = child.end
        rows.add_entries(depth, position, end)

    walk(0, len(engine.view.transcript), engine.view.forest.roots(), 0)
    return rows


def filter_rows(engine: Engine, needle: str) -> RowList:
    """Entries whose exact record holds ``needle`` and folds whose brief or source does.

    Case-insensitive. Rows keep their tree depth; the list is flat and in transcript order.
    """
    wanted = needle.strip().casefold()
    if not wanted:
        return RowList()
    wanted_bytes = wanted.encode("utf-8")
    entries = engine.view.transcript.entries
    # Record bytes are canonical JSON: a quote or newline in the text is escaped there, so
    # the readable text is searched too.
    matched = [
        index
        for index, entry in enumerate(entries)
        if wanted_bytes in entry.record_bytes.lower() or wanted in entry.text.casefold()
    ]
    forest = engine.view.forest
    rows = [MapRow(len(forest.chain_at(index)), index, None) for index in matched]
    for fold in forest.in_order():
        first = bisect.bisect_left(matched, fold.start)
        holds_match = first < len(matched) and matched[first] < fold.end
        if holds_match or wanted in fold.brief.casefold():
            rows.append(MapRow(forest.depth(fold.handle), fold.start, fold.handle))
    # A fold sorts before the entries it starts at, a parent before its children.
    rows.sort(key=lambda row: (row.entry_index, 0 if row.is_fold else 1, row.depth))
    return RowList(rows)


def entry_kind(engine: Engine, index: int) -> str:
    entry = engine.view.transcript.entries[index]
    if entry.kind == "tool_result":
        return f"result {entry.tool_name}" if entry.tool_name else "tool result"
    if entry.kind == "assistant" and entry.tool_calls:
        names = ", ".join(dict.fromkeys(call.name for call in entry.tool_calls))
        return f"assistant → {names}"
    return entry.kind


def entry_line(engine: Engine, index: int) -> str:
    """The first line of an entry's text, or of its first tool call's arguments."""
    entry = engine.view.transcript.entries[index]
    text = entry.text.strip()
    if not text and entry.tool_calls:
        text = str(entry.tool_calls[0].arguments)
    if not text:
        text = f"({len(entry.record_bytes):,} bytes)"
    return text.splitlines()[0][:PREVIEW_CHARS] if text else ""


def _covering_tokens(engine: Engine, index: int) -> int | None:
    """Tokens of the projection item that is exactly entry ``index``, if there is one."""
    projection = engine.view.projection
    position = projection.item_index_at(index)
    if position < 0:
        return None
    item = projection.items[position]
    if item.start == index and item.end == index + 1 and item.fold is None:
        return item.tokens
    return None


@dataclass(frozen=True, slots=True)
class EntryWords:
    """What an entry's row says that never changes: an entry is immutable once appended."""

    identifier: str
    """The entry id."""
    kind: str
    """As :func:`entry_kind` says."""
    text: str
    """As :func:`entry_line` says."""
    source_bytes: int
    """Bytes of its exact record."""


def entry_words(engine: Engine, index: int) -> EntryWords:
    """The unchanging words of entry ``index`` (reading it back if the engine released it)."""
    entry = engine.view.transcript.entries[index]
    return EntryWords(
        entry.id, entry_kind(engine, index), entry_line(engine, index), len(entry.record_bytes)
    )


def describe_row(
    engine: Engine,
    row: MapRow,
    marks: MarkIndex,
    overrides: Mapping[str, bool],
    words: EntryWords | None = None,
) -> RowView:
    """The words of one row, read from the engine as it is now (``words``: the entry's, read
    before; they never change)."""
    if row.handle is not None:
        return _describe_fold(engine, engine.view.forest.folds[row.handle], marks, overrides)
    index = row.entry_index
    if words is None:
        words = entry_words(engine, index)
    covering = marks.covering(index, index + 1)
    shows_raw = engine.view.forest.shows_raw(index)
    view = engine.view.projection.views.get(index)
    states: list[str] = []
    if index in engine.view.pinned:
        states.append("pinned")
    if not shows_raw:
        states.append("folded")
    elif view is not None:
        states.append(view[0])
    elif covering:
        states.append("marked")
    if not states:
        states.append("raw")
    if "pinned" in states and len(states) > 1:
        states.append("restored at next commit")
    return RowView(
        identifier=words.identifier,
        kind=words.kind,
        text=words.text,
        tokens=_covering_tokens(engine, index) if shows_raw else None,
        whole_tokens=engine.view.projection.whole_tokens(index),
        source_bytes=words.source_bytes,
        state=" · ".join(states),
        mark=covering[0].id if covering else None,
        openable=False,
        opened=False,
    )


def _describe_fold(
    engine: Engine, fold: Fold, marks: MarkIndex, overrides: Mapping[str, bool]
) -> RowView:
    forest = engine.view.forest
    projection = engine.view.projection
    in_window = forest.is_visible(fold.handle) or forest.is_visible_open(fold.handle)
    if fold.handle in forest.expanded:
        state = "expanded"
        if fold.handle in engine.view.staged_refolds:
            state += " · refold staged"
    else:
        state = "folded"
    if not in_window:
        state += " (in folded parent)"
    covering = marks.covering(fold.start, fold.end)
    if covering and in_window:
        state += f" · marked {covering[0].id}"
    return RowView(
        identifier=fold.handle,
        kind=f"{fold.kind} fold",
        text=fold.brief.splitlines()[0][:PREVIEW_CHARS] if fold.brief else "",
        tokens=projection.tokens_of_range(fold.start, fold.end) if in_window else None,
        whole_tokens=None,
        source_bytes=fold.source_bytes,
        state=state,
        mark=covering[0].id if covering else None,
        openable=True,
        opened=tree_is_open(engine, fold.handle, overrides),
    )
