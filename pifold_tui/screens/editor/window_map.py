"""The window map: a virtualised list of the transcript's rows (Textual's line API).

Only the rows on screen are ever turned into text (:meth:`WindowMap.render_line` asks
:func:`describe_row` for them), and a cursor move repaints two lines, so moving through a
20,000-entry session costs the same as through a short one.
"""

from __future__ import annotations

from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from pifold_core.engine import Engine
from pifold_tui.screens.editor.columns import (
    IDENTIFIER_WIDTH,
    TOKENS_WIDTH,
    MapColumns,
    columns_for,
)
from pifold_tui.screens.editor.row_list import MapRow, RowList
from pifold_tui.screens.editor.rows import (
    EntryWords,
    MarkIndex,
    RowView,
    build_rows,
    describe_row,
    entry_words,
    filter_rows,
)


def format_tokens(view: RowView) -> str:
    """Tokens the row costs now; ``~N`` (what it would cost raw) when it is not in the window."""
    if view.tokens is not None:
        return f"{view.tokens:,}"
    if view.whole_tokens is not None:
        return f"({view.whole_tokens:,})"
    return "—"


class WindowMap(ScrollView, can_focus=True):
    """Every entry and fold of the window in transcript order, with a cursor."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "cursor(-1)", "Up", show=False),
        Binding("down", "cursor(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "jump(0)", "First", show=False),
        Binding("end", "jump(-1)", "Last", show=False),
        Binding("right", "open_row", "Open in tree"),
        Binding("left", "close_row", "Close in tree"),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "window-map--cursor",
        "window-map--fold",
        "window-map--marked",
        "window-map--pinned",
        "window-map--muted",
    }
    """
    | Class | Description |
    | :- | :- |
    | `window-map--cursor` | The selected row. |
    | `window-map--fold` | Fold rows. |
    | `window-map--marked` | The state column of rows under a pending mark. |
    | `window-map--pinned` | The state column of pinned rows. |
    | `window-map--muted` | Rows not in the window as themselves (inside a collapsed fold). |
    """

    DEFAULT_CSS = """
    WindowMap { height: 1fr; overflow-x: hidden; }
    WindowMap > .window-map--cursor { background: $primary 40%; }
    WindowMap:focus > .window-map--cursor { background: $primary 70%; }
    WindowMap > .window-map--fold { color: $secondary; text-style: bold; }
    WindowMap > .window-map--marked { color: $success; }
    WindowMap > .window-map--pinned { color: $error; }
    WindowMap > .window-map--muted { color: $text-muted; }
    """

    class ColumnsChanged(Message):
        """The map's width changed, and with it how its columns share it."""

        def __init__(self, columns: MapColumns) -> None:
            super().__init__()
            self.columns = columns
            """The columns now."""

    class Highlighted(Message):
        """The cursor moved to another row (or the rows changed under it)."""

        def __init__(self, row: MapRow | None) -> None:
            super().__init__()
            self.row = row
            """The selected row, or ``None`` when the map is empty."""

    def __init__(self, engine: Engine, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.engine = engine
        self.overrides: dict[str, bool] = {}
        """Folds the user opened or closed in the tree, against the engine's expanded set."""
        self.filter_text = ""
        """The filter in force; empty for the whole tree."""
        self.rows = RowList()
        """The rows listed, in order."""
        self.cursor = 0
        self.marks = MarkIndex(())
        self._views: dict[MapRow, RowView] = {}
        """Rows described since the last reload (their state may change at a reload)."""
        self._words: dict[int, EntryWords] = {}
        """Entries' unchanging words, kept across reloads: a released entry is read back
        from the log to describe it, and a reload after an action need not read it again."""

    @property
    def columns(self) -> MapColumns:
        """How the map's width is shared between its columns now."""
        return columns_for(self.size.width)

    def on_resize(self, event: events.Resize) -> None:
        self.post_message(self.ColumnsChanged(self.columns))

    # -- rows -----------------------------------------------------------------------------

    def reload(self, keep: MapRow | None = None) -> None:
        """Rebuild the rows from the engine, keeping the cursor on ``keep`` (or the same row)."""
        selected = keep if keep is not None else self.selected
        self.marks = MarkIndex(self.engine.view.marks.values())
        self._views.clear()
        if self.filter_text:
            self.rows = filter_rows(self.engine, self.filter_text)
        else:
            self.rows = build_rows(self.engine, self.overrides)
        self.cursor = self._position_of(selected)
        self.virtual_size = Size(self.size.width, len(self.rows))
        self._scroll_to_cursor()
        self.refresh()
        self.post_message(self.Highlighted(self.selected))

    def _position_of(self, row: MapRow | None) -> int:
        if row is None or not self.rows:
            return 0
        position = self.rows.position_of(row.entry_index, row.handle)
        if position is not None:
            return position
        # The row is gone (a fold landed over it, or the filter hides it): stay nearby.
        return min(self.rows.first_from(row.entry_index), len(self.rows) - 1)

    def set_filter(self, text: str) -> None:
        self.filter_text = text.strip()
        self.reload()

    def reveal(self, handle: str | None, entry_index: int) -> None:
        """Move the cursor to a fold (or, with no handle, an entry) in the whole tree: the
        filter is dropped and every fold holding it opened in the tree (looking only)."""
        self.filter_text = ""
        forest = self.engine.view.forest
        holders = (
            list(forest.ancestors(handle)) if handle is not None else forest.chain_at(entry_index)
        )
        for holder in holders:
            self.overrides[holder.handle] = True
        if handle is not None:
            row = MapRow(forest.depth(handle), forest.folds[handle].start, handle)
        else:
            row = MapRow(len(holders), entry_index, None)
        self.reload(row)

    @property
    def selected(self) -> MapRow | None:
        return self.rows[self.cursor] if 0 <= self.cursor < len(self.rows) else None

    def view_of(self, row: MapRow) -> RowView:
        view = self._views.get(row)
        if view is None:
            words = None
            if row.handle is None:
                words = self._words.get(row.entry_index)
                if words is None:
                    words = self._words[row.entry_index] = entry_words(self.engine, row.entry_index)
            view = describe_row(self.engine, row, self.marks, self.overrides, words)
            self._views[row] = view
        return view

    # -- moving -----------------------------------------------------------------------------

    def move_to(self, position: int) -> None:
        if not self.rows:
            return
        position = max(0, min(len(self.rows) - 1, position))
        if position == self.cursor:
            return
        previous, self.cursor = self.cursor, position
        self._refresh_row(previous)
        self._refresh_row(position)
        self._scroll_to_cursor()
        self.post_message(self.Highlighted(self.selected))

    def _refresh_row(self, position: int) -> None:
        y = position - round(self.scroll_offset.y)
        if 0 <= y < self.size.height:
            self.refresh(Region(0, y, self.size.width, 1))

    def _scroll_to_cursor(self) -> None:
        top = round(self.scroll_offset.y)
        height = max(1, self.size.height)
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False, immediate=True)
        elif self.cursor >= top + height:
            self.scroll_to(y=self.cursor - height + 1, animate=False, immediate=True)

    def action_cursor(self, step: int) -> None:
        self.move_to(self.cursor + step)

    def action_page(self, direction: int) -> None:
        self.move_to(self.cursor + direction * max(1, self.size.height - 1))

    def action_jump(self, position: int) -> None:
        self.move_to(position if position >= 0 else len(self.rows) - 1)

    def action_open_row(self) -> None:
        """Show the selected fold's interior beneath it (looking only: nothing moves)."""
        row = self.selected
        if row is None or row.handle is None or self.filter_text:
            return
        if not self.view_of(row).opened:
            self.overrides[row.handle] = True
            self.reload(row)
        elif self.cursor + 1 < len(self.rows):
            self.move_to(self.cursor + 1)

    def action_close_row(self) -> None:
        """Hide the selected fold's interior, or go up to the fold holding the row."""
        row = self.selected
        if row is None or self.filter_text:
            return
        if row.handle is not None and self.view_of(row).opened:
            self.overrides[row.handle] = False
            self.reload(row)
            return
        for position in range(self.cursor - 1, -1, -1):
            if self.rows[position].depth < row.depth:
                self.move_to(position)
                return

    def toggle_row(self) -> None:
        row = self.selected
        if row is None or row.handle is None:
            return
        if self.view_of(row).opened:
            self.action_close_row()
        else:
            self.action_open_row()

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        position = offset.y + round(self.scroll_offset.y)
        if position == self.cursor and event.chain == 2:
            self.toggle_row()
        elif position < len(self.rows):
            self.move_to(position)

    # -- drawing ----------------------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        base = self.rich_style
        position = y + round(self.scroll_offset.y)
        if position >= len(self.rows):
            return Strip.blank(width, base)
        row = self.rows[position]
        view = self.view_of(row)
        style = base
        if view.tokens is None:
            style = style + self.get_component_rich_style("window-map--muted")
        if row.is_fold:
            style = style + self.get_component_rich_style("window-map--fold")
        if position == self.cursor:
            style = style + self.get_component_rich_style("window-map--cursor")
        state_style = style
        if "pinned" in view.state:
            state_style = style + self.get_component_rich_style("window-map--pinned", partial=True)
        elif view.mark is not None:
            state_style = style + self.get_component_rich_style("window-map--marked", partial=True)
        segments = self._segments(row, view, style, state_style)
        return Strip(segments).adjust_cell_length(width, style).simplify()

    def _segments(
        self, row: MapRow, view: RowView, style: Style, state_style: Style
    ) -> list[Segment]:
        marker = "  "
        if view.openable:
            marker = "▾ " if view.opened else "▸ "
        state = view.state if view.mark is None else f"{view.state} {view.mark}"
        columns = self.columns
        segments = [
            Segment("  " * row.depth + marker, style),
            Segment(f"{view.identifier:<{IDENTIFIER_WIDTH}.{IDENTIFIER_WIDTH}}", style),
        ]
        if columns.kind:
            segments.append(Segment(f"{_fitted(view.kind, columns.kind):<{columns.kind}}", style))
        segments += [
            Segment(f"{format_tokens(view):>{TOKENS_WIDTH}}  ", style),
            Segment(f"{_fitted(state, columns.state):<{columns.state}} ", state_style),
        ]
        if columns.text:
            segments.append(Segment(view.text.replace("\t", " "), style))
        return segments


def _fitted(text: str, width: int) -> str:
    """``text`` in ``width`` cells, its end replaced by ``…`` when it is longer."""
    if len(text) <= width:
        return text
    return text[: max(0, width - 1)] + "…" if width else ""
