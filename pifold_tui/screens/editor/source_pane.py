"""The side pane: the exact, hash-verified source of the selected row, a slice at a time.

Everything shown comes from the engine's peeks (:mod:`.source_reading`), which verify every
byte they return against its digest; the pane never reads the store itself. A peek moves
nothing and logs nothing, so looking is free. Sources are JSON (a fold's is the list of its
entries' records), so the pane highlights them as JSON; the readable form indents the same
verified bytes.

**Off the UI thread, bounded** (issue 23). The exact form reads only the slice shown (of a
fold, the few entries four kilobytes overlap); the readable form reads the whole source. Both
run in a thread worker and the slice comes back as a :class:`SourcePane.Loaded` message, so
the app keeps taking keys while a large fold loads. Each load is numbered; a newer one (the
cursor rested elsewhere, a page, the other form) cancels the older worker, which stops at its
next chunk, and an older result is dropped when it arrives. What comes back is only the slice
the pane shows, so the UI thread highlights a few kilobytes; scrolling on adds the next slice
below and highlights all that is shown again, so that grows with how far the user reads.
"""

from __future__ import annotations

from dataclasses import replace

from rich.syntax import Syntax
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import Static
from textual.worker import Worker, get_current_worker

from pifold_core.engine import Engine
from pifold_core.peek import PeekError
from pifold_core.store import StoreObjectCorrupt
from pifold_tui.screens.editor.source_reading import (
    SLICE_BYTES,
    SourceSlice,
    Superseded,
    read_slice,
)

VERIFYING = "reading and verifying…"
"""What the header says beside the id while a peek loads."""


def describe_failure(failure: StoreObjectCorrupt | PeekError) -> str:
    """What the pane says when a peek is refused or the store is damaged."""
    if isinstance(failure, StoreObjectCorrupt):
        # Never shown as an ordinary refusal: a damaged store object is data loss.
        return f"STORE OBJECT CORRUPT: {failure}"
    return f"peek refused: {failure}"


class SourcePane(VerticalScroll):
    """Shows one row's source; ``[`` and ``]`` page through a large one."""

    DEFAULT_CSS = """
    SourcePane { width: 2fr; border-left: solid $panel; padding: 0 1; }
    SourcePane > #source-header { color: $text-muted; }
    SourcePane > #source-error { color: $error; text-style: bold; }
    """

    class Loaded(Message):
        """A peek's slice (or why there is none), back from the worker that read it."""

        def __init__(
            self, load: int, found: SourceSlice | None, error: str | None, more: bool = False
        ) -> None:
            super().__init__()
            self.load = load
            """The number of the load that read it (only the newest is shown)."""
            self.more = more
            """Whether it continues the slice shown (the pane was scrolled to its end)."""
            self.found = found
            """The verified slice, or ``None`` when the peek failed."""
            self.error = error
            """Why the peek failed, or ``None``."""

    def __init__(self, engine: Engine, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.engine = engine
        self.identifier: str | None = None
        self.slice_offset = 0
        self.readable = False
        self.current: SourceSlice | None = None
        """The slice shown, or ``None`` when nothing (or an error, or a load) is shown."""
        self.error: str | None = None
        """Why the source could not be shown."""
        self.loads = 0
        """Loads started so far; the newest one's number is the only result shown."""
        self.in_flight = False
        """Whether the newest load is still being read and verified."""
        self.reading: Worker[None] | None = None
        """The worker of the newest load (a test waits on it)."""

    def compose(self) -> ComposeResult:
        yield Static("", id="source-header")
        yield Static("", id="source-error")
        yield Static("", id="source-body")

    def show(self, identifier: str | None) -> None:
        """Show the start of ``identifier``'s source (nothing for ``None``)."""
        self.identifier, self.slice_offset = identifier, 0
        self._load()

    def page(self, direction: int) -> None:
        if self.current is None:
            return
        # Forward from the end of what is shown (more may have been added below the slice).
        offset = self.current.end if direction > 0 else self.slice_offset - SLICE_BYTES
        if 0 <= offset < self.current.total:
            self.slice_offset = offset
            self._load()

    def toggle_form(self) -> None:
        self.readable, self.slice_offset = not self.readable, 0
        self._load()

    def load_more(self) -> None:
        """Read the exact bytes after those shown and add them below: scrolling to the end
        of a slice reads on, a bounded slice at a time (the readable form pages instead)."""
        shown = self.current
        if shown is None or shown.readable or self.in_flight or shown.end >= shown.total:
            return
        self.loads += 1
        self.in_flight = True
        self.reading = self._read(self.loads, shown.identifier, shown.end, False, True)

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if new_value > old_value and new_value >= self.max_scroll_y:
            self.load_more()

    def _load(self) -> None:
        """Start reading the slice asked for; it is shown when :class:`Loaded` arrives."""
        self.loads += 1
        self.current, self.error = None, None
        self.query_one("#source-error", Static).update("")
        self.query_one("#source-body", Static).update("")
        header = self.query_one("#source-header", Static)
        if self.identifier is None:
            self.in_flight = False
            self.workers.cancel_group(self, "source")
            header.update("Nothing selected.")
            return
        self.in_flight = True
        header.update(Text(f"{self.identifier} · {VERIFYING}"))
        self.reading = self._read(self.loads, self.identifier, self.slice_offset, self.readable)

    @work(thread=True, exclusive=True, group="source")
    def _read(
        self, load: int, identifier: str, offset: int, readable: bool, more: bool = False
    ) -> None:
        """Peek in a thread and post the slice back; a superseded load stops at its next
        chunk, or its result is dropped on arrival."""
        worker = get_current_worker()
        try:
            found = read_slice(
                self.engine, identifier, offset, readable, lambda: not worker.is_cancelled
            )
        except Superseded:
            return
        except (StoreObjectCorrupt, PeekError) as failure:
            self.post_message(self.Loaded(load, None, describe_failure(failure)))
            return
        self.post_message(self.Loaded(load, found, None, more))

    def on_source_pane_loaded(self, message: Loaded) -> None:
        message.stop()
        if message.load != self.loads or self.identifier is None:
            return  # a newer rest, page or form asked for something else since
        self.in_flight = False
        header = self.query_one("#source-header", Static)
        error = self.query_one("#source-error", Static)
        body = self.query_one("#source-body", Static)
        shown, found = self.current, message.found
        if message.more and shown is not None and found is not None:
            # The bytes after those shown, added below them; where the reader is stays put.
            found = replace(
                found,
                offset=shown.offset,
                text=shown.text + found.text,
                # An entry across the boundary is read by both: an upper bound.
                entries_read=min(shown.entries_read + found.entries_read, found.entries_total),
            )
        self.current, self.error = found, message.error
        if self.current is None:
            header.update(Text(self.identifier))
            error.update(Text(str(self.error)))
            return
        header.update(Text(self.current.header))
        dark = self.app.current_theme.dark
        body.update(
            Syntax(
                self.current.text,
                "json",
                theme="monokai" if dark else "friendly",
                word_wrap=True,
                background_color="default",
            )
        )
        if not message.more:
            self.scroll_home(animate=False)
