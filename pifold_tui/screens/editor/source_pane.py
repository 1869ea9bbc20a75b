"""The side pane: the exact, hash-verified source of the selected row, a slice at a time.

Everything shown comes from :meth:`Engine.peek`, which re-hashes a fold's stored source and
checks it against the entries before returning a byte; the pane never reads the store
itself. A peek moves nothing and logs nothing, so looking is free. Sources are JSON (a fold's
is the list of its entries' records), so the pane highlights them as JSON; the readable form
indents the same verified bytes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from rich.syntax import Syntax
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from pifold_core.engine import Engine
from pifold_core.peek import PeekError
from pifold_core.store import StoreObjectCorrupt

SLICE_BYTES = 4 * 1024
"""Bytes (or, in the readable form, characters) shown at once: large sources page, and a
slice highlights in a few milliseconds."""


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


class SourcePane(VerticalScroll):
    """Shows one row's source; ``[`` and ``]`` page through a large one."""

    DEFAULT_CSS = """
    SourcePane { width: 2fr; border-left: solid $panel; padding: 0 1; }
    SourcePane > #source-header { color: $text-muted; }
    SourcePane > #source-error { color: $error; text-style: bold; }
    """

    def __init__(self, engine: Engine, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.engine = engine
        self.identifier: str | None = None
        self.slice_offset = 0
        self.readable = False
        self.current: SourceSlice | None = None
        """The slice shown, or ``None`` when nothing (or an error) is shown."""
        self.error: str | None = None
        """Why the source could not be shown."""

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
        header = self.query_one("#source-header", Static)
        error = self.query_one("#source-error", Static)
        body = self.query_one("#source-body", Static)
        self.current, self.error = None, None
        if self.identifier is None:
            header.update("Nothing selected.")
            error.update("")
            body.update("")
            return
        try:
            self.current = read_slice(
                self.engine, self.identifier, self.slice_offset, self.readable
            )
        except StoreObjectCorrupt as failure:
            # Never shown as an ordinary refusal: a damaged store object is data loss.
            self.error = f"STORE OBJECT CORRUPT: {failure}"
        except PeekError as failure:
            self.error = f"peek refused: {failure}"
        if self.current is None:
            header.update(Text(self.identifier))
            error.update(Text(str(self.error)))
            body.update("")
            return
        header.update(Text(self.current.header))
        error.update("")
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
