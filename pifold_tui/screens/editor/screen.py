"""``/fold-editor``: an interactive map of the window, its sources and the actions on them.

The map (left) lists every entry and fold in transcript order; the pane (right) shows the
selected row's verified source. Every action is planned first (:mod:`.actions`) and shown in
a dialog saying whether it moves bytes and what it costs; Enter runs it through the engine's
own verb, whose refusal is shown as it is. Nothing here appends to the transcript or asks
for a request: looking is free, and the screen adds nothing the model sees.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Input, Static

from pifold_core.engine import Engine
from pifold_core.marks import Mark
from pifold_core.search import SearchError, SearchResults, parse_query
from pifold_core.store import StoreError
from pifold_tui.screens.editor.actions import (
    ActionPlan,
    ActionRefused,
    mark_for,
    plan_brief,
    plan_commit,
    plan_expand,
    plan_pin,
    plan_recut,
    plan_refold,
    plan_unmark,
    row_identifier,
)
from pifold_tui.screens.editor.dialogs import BriefEditor, ConfirmAction
from pifold_tui.screens.editor.long_lived import LongLivedObjects
from pifold_tui.screens.editor.row_list import MapRow
from pifold_tui.screens.editor.search_hits import SearchHits
from pifold_tui.screens.editor.source_pane import SourcePane
from pifold_tui.screens.editor.window_map import WindowMap
from pifold_tui.screens.status.frame import BarFooter

SOURCE_DELAY = 0.12
"""Seconds the cursor rests before the pane peeks: holding a key down never waits on a
large fold's verification."""

NARROW_BELOW = 140
"""Narrower than this the map takes two thirds of the width (three fifths above): its id,
tokens and state need 57 cells before the kind and the text get any."""


class FoldEditorScreen(Screen[None]):
    """Browse the window, peek any source, and pin, unmark, re-cut, brief, expand, refold
    or commit; ``read_only`` refuses every action that would change the session."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "choose", "Open/pick", show=False),
        Binding("slash", "filter", "Filter"),
        Binding("p", "pin", "Pin/unpin"),
        Binding("u", "unmark", "Unmark"),
        Binding("r", "recut", "Re-cut"),
        Binding("b", "brief", "Brief"),
        Binding("e", "expand", "Expand"),
        Binding("f", "refold", "Refold"),
        Binding("c", "commit", "Commit now"),
        Binding("left_square_bracket", "page(-1)", "Prev slice", show=False),
        Binding("right_square_bracket", "page(1)", "Next slice", show=False),
        Binding("v", "form", "Exact/readable"),
        Binding("escape", "leave", "Back"),
    ]

    AUTO_FOCUS = "WindowMap"
    """Keys go to the map from the first frame (and the footer is built once, not twice)."""

    DEFAULT_CSS = """
    FoldEditorScreen #editor-body { height: 1fr; }
    FoldEditorScreen #editor-left { width: 3fr; }
    FoldEditorScreen #editor-filter { height: 3; }
    FoldEditorScreen.-narrow #editor-left { width: 2fr; }
    FoldEditorScreen.-narrow SourcePane { width: 1fr; }
    FoldEditorScreen #editor-header {
        color: $text-muted; text-style: bold; text-wrap: nowrap; text-overflow: ellipsis;
    }
    FoldEditorScreen #editor-message { height: auto; padding: 0 1; }
    FoldEditorScreen #editor-message.-refused { color: $error; text-style: bold; }
    FoldEditorScreen #editor-message.-done { color: $success; }
    """

    def __init__(self, engine: Engine, read_only: bool = False) -> None:
        super().__init__()
        self.engine = engine
        self.read_only = read_only
        self.recut: tuple[Mark, MapRow | None] | None = None
        """A re-cut in progress: the mark, and the new first row once picked."""
        self.message = ""
        """The last outcome, refusal or prompt shown under the map."""
        self._source_timer: Timer | None = None
        self._filter_timer: Timer | None = None
        self.long_lived = LongLivedObjects()
        """The session's objects, out of the collector's full passes while the screen is
        open."""

    def compose(self) -> ComposeResult:
        # Before anything of the screen is made: what is alive now (the engine's state, the
        # app) outlives the screen, so full collections while it opens need not walk it.
        self.long_lived.freeze()
        with Horizontal(id="editor-body"):
            with Vertical(id="editor-left"):
                yield Input(placeholder="/ filter by text (briefs and sources)", id="editor-filter")
                yield SearchHits(id="editor-hits")
                yield Static("", id="editor-header")
                yield WindowMap(self.engine, id="window-map")
            yield SourcePane(self.engine, id="source-pane")
        yield Static("", id="editor-message")
        yield BarFooter(self.engine)

    @property
    def window_map(self) -> WindowMap:
        return self.query_one(WindowMap)

    @property
    def source_pane(self) -> SourcePane:
        return self.query_one(SourcePane)

    def on_resize(self, event: events.Resize) -> None:
        self.set_class(event.size.width < NARROW_BELOW, "-narrow")

    def on_window_map_columns_changed(self, event: WindowMap.ColumnsChanged) -> None:
        """The header is made from the map's own columns, so it sits over them."""
        self.query_one("#editor-header", Static).update(event.columns.header())

    def on_unmount(self) -> None:
        self.long_lived.release()

    def on_mount(self) -> None:
        self.window_map.reload()
        if self.read_only:
            self.say("read-only session: browse and peek freely; actions are refused", False)

    # -- selection and source ---------------------------------------------------------------

    def on_window_map_highlighted(self, event: WindowMap.Highlighted) -> None:
        if self._source_timer is not None:
            self._source_timer.stop()
        self._source_timer = self.set_timer(SOURCE_DELAY, self.show_source)

    def show_source(self) -> None:
        """Peek the selected row into the pane now."""
        row = self.window_map.selected
        self.source_pane.show(row_identifier(self.engine, row) if row is not None else None)

    def action_page(self, direction: int) -> None:
        self.source_pane.page(direction)

    def action_form(self) -> None:
        self.source_pane.toggle_form()

    # -- filter ----------------------------------------------------------------------------

    def action_filter(self) -> None:
        self.query_one("#editor-filter", Input).focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        if self._filter_timer is not None:
            self._filter_timer.stop()
        value = event.value
        self._filter_timer = self.set_timer(0.15, lambda: self.window_map.set_filter(value))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if self._filter_timer is not None:
            self._filter_timer.stop()
        self.window_map.set_filter(event.value)
        count = len(self.window_map.rows)
        if event.value.strip():
            self.say(f"{count:,} rows match {event.value.strip()!r}; searching…", True)
            self.search_history(event.value.strip())
        self.window_map.focus()

    # -- search ----------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="search")
    def search_history(self, text: str) -> None:
        """Search folded history for ``text`` off the UI thread (issue 21), then list it."""
        try:
            results = self.engine.search(parse_query(text, limit=50))
        except (SearchError, StoreError) as error:
            self.app.call_from_thread(self.refuse, f"search: {error}")
            return
        self.app.call_from_thread(self.show_hits, text, results)

    def show_hits(self, text: str, results: SearchResults) -> None:
        """List the hits under the field; Enter on one jumps to its fold."""
        hits = self.query_one(SearchHits)
        hits.show_results(results)
        rows = f"{len(self.window_map.rows):,} rows match {text!r}; "
        found = f"{results.total:,} search hits in folded history"
        if results.rebuilt is not None:
            found += f" ({results.rebuilt})"
        self.say(rows + found + ("; Enter jumps to a hit's fold" if results.hits else ""), True)
        if results.hits:
            hits.focus()

    def on_search_hits_chosen(self, event: SearchHits.Chosen) -> None:
        """Jump the map's cursor to the hit's fold, then peek it as usual."""
        self.query_one(SearchHits).hide()
        self.query_one("#editor-filter", Input).value = ""
        hit = event.hit
        self.window_map.reveal(hit.fold, hit.index)
        self.window_map.focus()
        self.show_source()
        self.say(f"{hit.fold or hit.entry}: holds the hit in entry {hit.entry}", True)

    # -- messages --------------------------------------------------------------------------

    def say(self, text: str, good: bool) -> None:
        """Show an outcome (``good``) or a refusal under the map."""
        self.message = text
        widget = self.query_one("#editor-message", Static)
        widget.update(Text(text))
        widget.set_class(not good, "-refused")
        widget.set_class(good, "-done")

    def refuse(self, reason: str) -> None:
        self.say(f"refused: {reason}", False)

    def _allowed(self, verb: str) -> bool:
        if self.read_only:
            self.refuse(f"{verb}: this session is open read-only; nothing was changed")
            return False
        return True

    # -- actions ---------------------------------------------------------------------------

    def _selected(self, verb: str) -> MapRow | None:
        row = self.window_map.selected
        if row is None:
            self.refuse(f"{verb}: nothing is selected")
        return row

    def offer(self, plan: ActionPlan) -> None:
        """Show the plan; run it if the user confirms."""

        def answered(run: bool | None) -> None:
            if run:
                self.run_plan(plan)
            else:
                self.say(f"{plan.title}: left, nothing changed", True)

        self.app.push_screen(ConfirmAction(plan), answered)

    def run_plan(self, plan: ActionPlan) -> None:
        try:
            outcome = plan.run()
        except ValueError as refusal:  # EngineError and every verb's own error
            self.refuse(f"{plan.title}: {refusal}")
            return
        self.say(outcome, True)
        self.refresh_from_engine()

    def refresh_from_engine(self) -> None:
        """Repaint the map, the pane and the bar from the engine's state now."""
        self.window_map.reload()
        self.query_one(BarFooter).show()
        self.show_source()

    def _plan(self, verb: str, build: Callable[[Engine, MapRow], ActionPlan]) -> None:
        if not self._allowed(verb):
            return
        row = self._selected(verb)
        if row is None:
            return
        try:
            plan = build(self.engine, row)
        except ActionRefused as refusal:
            self.refuse(str(refusal))
            return
        self.offer(plan)

    def action_pin(self) -> None:
        self._plan("pin", plan_pin)

    def action_unmark(self) -> None:
        self._plan("unmark", plan_unmark)

    def action_expand(self) -> None:
        self._plan("expand", plan_expand)

    def action_refold(self) -> None:
        self._plan("refold", plan_refold)

    def action_commit(self) -> None:
        if not self._allowed("commit"):
            return
        try:
            plan = plan_commit(self.engine)
        except ActionRefused as refusal:
            self.refuse(str(refusal))
            return
        self.offer(plan)

    def action_brief(self) -> None:
        if not self._allowed("brief"):
            return
        row = self._selected("brief")
        if row is None:
            return
        try:
            mark = mark_for(self.engine, row)
        except ActionRefused as refusal:
            self.refuse(f"brief: {refusal}")
            return

        def written(text: str | None) -> None:
            if text is None:
                self.say(f"brief {mark.id}: left, nothing changed", True)
            else:
                # The brief itself is the confirmation: writing one moves no byte.
                self.run_plan(plan_brief(self.engine, mark, text))

        self.app.push_screen(BriefEditor(mark.id, mark.brief or ""), written)

    def action_recut(self) -> None:
        if not self._allowed("re-cut"):
            return
        row = self._selected("re-cut")
        if row is None:
            return
        try:
            mark = mark_for(self.engine, row)
        except ActionRefused as refusal:
            self.refuse(f"re-cut: {refusal}")
            return
        self.recut = (mark, None)
        self.say(
            f"re-cut {mark.id}: move to the new FIRST unit and press Enter (Escape cancels)", True
        )

    def action_choose(self) -> None:
        """Enter: pick a unit during a re-cut, else open or close the fold in the tree."""
        row = self.window_map.selected
        if self.recut is None:
            self.window_map.toggle_row()
            return
        if row is None:
            return
        mark, first = self.recut
        if first is None:
            self.recut = (mark, row)
            self.say(f"re-cut {mark.id}: now the new LAST unit, and Enter", True)
            return
        self.recut = None
        self.offer(plan_recut(self.engine, mark, first, row))

    def action_leave(self) -> None:
        """Escape: cancel a re-cut, leave the filter (and its search hits), or leave the
        screen."""
        filter_box = self.query_one("#editor-filter", Input)
        hits = self.query_one(SearchHits)
        searching = hits.shown
        hits.hide()  # the hits go with the filter they were searched from
        if self.recut is not None:
            self.recut = None
            self.say("re-cut left, nothing changed", True)
        elif searching or filter_box.has_focus or self.window_map.filter_text:
            filter_box.value = ""
            self.window_map.set_filter("")
            self.window_map.focus()
        else:
            self.dismiss(None)
