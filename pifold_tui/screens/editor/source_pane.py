"""The side pane: the exact, hash-verified source of the selected row, a slice at a time.

Everything shown comes from :meth:`Engine.peek`, which re-hashes a fold's stored source and
checks it against the entries before returning a byte; the pane never reads the store
itself. A peek moves nothing and logs nothing, so looking is free. Sources are JSON (a fold's
is the list of its entries' records), so the pane highlights them as JSON; the readable form
indents the same verified bytes.

**Off the UI thread** (issue 23). Verifying a fold re-reads and re-hashes every entry it
spans (about 0.4 s for 2,000 entries), so the peek runs in a thread worker and its slice comes
back as a :class:`SourcePane.Loaded` message: the app keeps taking keys while a large fold
loads. Each load is numbered; a newer one (the cursor rested elsewhere, a page, the other
form) cancels the older worker and the older result is dropped when it arrives. What comes
back is only the slice the pane shows, so the UI thread highlights a few kilobytes at most.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from rich.syntax import Syntax
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import Static
from textual.worker import Worker

from pifold_core.engine import Engine
from pifold_core.peek import PeekError
from pifold_core.store import StoreObjectCorrupt

SLICE_BYTES = 4 * 1024
"""Bytes (or, in the readable form, characters) shown at once: large sources page, and a
slice highlights in a few milliseconds."""

VERIFYING = "reading and verifying…"
"""What the header says beside the id while a peek loads."""


@dataclass(frozen=True, slots=True)
class SourceSlice:
    """One slice of a verified source, ready to show."""

    identifier: str
    """The entry id or fold handle peeked."""
    text: str
    """The slice as text."""
    offset: int
    """Where the slice starts: a byte offset (exact) or a character offset (readable)."""
    total: int
    """Size of the whole source in the same unit."""
    digest: str
    """SHA-256 of the whole source, verified by the peek."""
    readable: bool
    """Indented JSON rather than the exact bytes."""
    end: int
    """Where the slice ends, in the same unit as :attr:`offset`."""

    @property
    def header(self) -> str:
        unit = "characters" if self.readable else "bytes"
        form = "readable form (v: exact bytes)" if self.readable else "exact bytes (v: readable)"
        span = f"{unit} {self.offset:,}–{self.end:,} of {self.total:,}"
        paging = "  [ ] page" if self.total > SLICE_BYTES else ""
        return f"{self.identifier} · sha256 {self.digest[:16]}… verified · {span} · {form}{paging}"


def read_slice(engine: Engine, identifier: str, offset: int, readable: bool) -> SourceSlice:
    """The slice of ``identifier``'s source at ``offset``; raises what :meth:`Engine.peek` does."""
    if not readable:
        result = engine.peek(identifier, offset, SLICE_BYTES)
        # A slice may end inside a multi-byte character; the next slice starts with its rest.
        text = result.data.decode("utf-8", errors="replace")
        return SourceSlice(
            identifier,
            text,
            offset,
            result.total_bytes,
            result.source_digest,
            False,
            offset + len(result.data),
        )
    whole = engine.peek(identifier)
    pretty = json.dumps(json.loads(whole.data), indent=2, ensure_ascii=False)
    text = pretty[offset : offset + SLICE_BYTES]
    return SourceSlice(
        identifier, text, offset, len(pretty), whole.source_digest, True, offset + len(text)
    )


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

        def __init__(self, load: int, found: SourceSlice | None, error: str | None) -> None:
            super().__init__()
            self.load = load
            """The number of the load that read it (only the newest is shown)."""
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
        offset = self.slice_offset + direction * SLICE_BYTES
        if 0 <= offset < self.current.total:
            self.slice_offset = offset
            self._load()

    def toggle_form(self) -> None:
        self.readable, self.slice_offset = not self.readable, 0
        self._load()

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
    def _read(self, load: int, identifier: str, offset: int, readable: bool) -> None:
        """Peek in a thread (the verification reads and hashes the whole source) and post
        the slice back; a cancelled (superseded) load's result is dropped on arrival."""
        try:
            found = read_slice(self.engine, identifier, offset, readable)
        except (StoreObjectCorrupt, PeekError) as failure:
            self.post_message(self.Loaded(load, None, describe_failure(failure)))
            return
        self.post_message(self.Loaded(load, found, None))

    def on_source_pane_loaded(self, message: Loaded) -> None:
        message.stop()
        if message.load != self.loads or self.identifier is None:
            return  # a newer rest, page or form asked for something else since
        self.in_flight = False
        header = self.query_one("#source-header", Static)
        error = self.query_one("#source-error", Static)
        body = self.query_one("#source-body", Static)
        self.current, self.error = message.found, message.error
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
        self.scroll_home(animate=False)
