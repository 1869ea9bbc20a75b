"""Notes that come back: a note about a path returns when a tool call touches that path.

After each tool batch (:class:`pifold_agent.loop.followers.BatchFollower`), the repository
paths its successful calls read, edited, wrote or listed (each tool's ``footprint``; bash
names no files, so it brings nothing back) are matched against the paths every note names
(:func:`pifold_agent.memory.notes.covers`). A matching note whose current version is not
visible in the window (never shown in this session, or shown and folded or clipped since) is
appended right after the batch's results as one host note, and the event stream hears of it.

"Shown" is read from the session itself, so a resumed session knows what its window holds:
a resurfaced note carries ``extra["memory"] = {"path", "version", "resurfaced"}``, and the
memory tool's results carry ``details["memory"]`` with the version whenever the whole text
was in the call (``view`` of the whole note, ``create``). A note is appended once per version
until the copy is folded again; it is never withdrawn or rewritten (an append: the wire audit
sees no rewrite). The index of what was shown grows with what is appended, never rescanning
the session.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from pifold_agent.loop.events import MemoryEvent
from pifold_agent.loop.followers import FinishedBatch
from pifold_agent.loop.window import ContextWindow, shows_raw
from pifold_agent.memory.notes import Note, covers
from pifold_agent.memory.store import MemoryStore
from pifold_agent.memory.tool import NAME as MEMORY_TOOL
from pifold_core.canonical import JsonValue
from pifold_core.entries import Entry
from pifold_core.settings import host_setting_in_force

SETTING = "memoryResurfacing"
"""The settings file's switch for resurfacing (on by default)."""

RESURFACED_CHARS = 4_000
"""The longest note text appended whole; a longer one is cut, with a pointer to ``view``."""

MAX_NOTES_PER_BATCH = 5
"""No more notes come back after one batch (the rest wait for the next touch)."""


class Resurfacer:
    """Brings notes back after the tool batches that touch their paths."""

    def __init__(self, store: MemoryStore, repository: Path, enabled: bool = True) -> None:
        self.store = store
        """Where the notes are."""
        self.repository = Path(repository).resolve()
        """The repository root the notes' paths are relative to."""
        self.enabled = enabled
        """Off: no note comes back (the ``memory`` tool still works)."""
        self._shown: dict[str, list[tuple[str, str]]] = {}
        self._scanned = 0

    def after_batch(self, batch: FinishedBatch) -> Sequence[Entry]:
        self._index(batch.window)
        for result in batch.results:
            written = memory_details(result)
            if result.tool_name == MEMORY_TOOL and written.get("written") is True:
                path, version = written.get("path"), written.get("version")
                batch.emit(
                    MemoryEvent("written", str(path), version if isinstance(version, str) else None)
                )
        if not self.enabled:
            return []
        touched = self.touched(batch)
        if not touched:
            return []
        notes: list[Entry] = []
        for note in self.store.notes():
            about = tuple(
                named for named in note.about if any(covers(named, path) for path in touched)
            )
            if not about or self.visible(batch.window, note):
                continue
            entry = batch.factory.note(
                resurfaced_text(note, about),
                {"memory": {"path": note.path, "version": note.version, "resurfaced": True}},
            )
            self._shown.setdefault(note.path, []).append((entry.id, note.version))
            batch.emit(MemoryEvent("resurfaced", note.path, note.version, about))
            notes.append(entry)
            if len(notes) == MAX_NOTES_PER_BATCH:
                break
        return notes

    def touched(self, batch: FinishedBatch) -> list[str]:
        """The repository paths the batch's successful calls touched, relative to its root."""
        found: list[str] = []
        for call, result in zip(batch.calls, batch.results, strict=False):
            tool = batch.tools.get(call.name)
            footprint = getattr(tool, "footprint", None)
            if result.is_error or call.name == MEMORY_TOOL or footprint is None:
                continue
            try:
                touched = footprint(dict(call.arguments), batch.cwd)
            except Exception:  # a footprint never decides a run: nothing is touched then
                continue
            for path in (*touched.reads, *touched.writes, *touched.trees):
                relative = self.relative(Path(path))
                if relative is not None and relative not in found:
                    found.append(relative)
        return found

    def relative(self, path: Path) -> str | None:
        """``path`` relative to the repository (``""`` for its root); ``None`` outside it."""
        absolute = Path(os.path.abspath(path))
        for candidate in (absolute, Path(os.path.realpath(absolute))):
            try:
                text = candidate.relative_to(self.repository).as_posix()
            except ValueError:
                continue
            return "" if text == "." else text
        return None

    def visible(self, window: ContextWindow, note: Note) -> bool:
        """Whether ``note``'s current version is in the window now, whole and raw."""
        return any(
            version == note.version and shows_raw(window, entry_id)
            for entry_id, version in self._shown.get(note.path, [])
        )

    def _index(self, window: ContextWindow) -> None:
        """Record what the entries appended since the last batch showed."""
        entries = window.entries()
        if len(entries) < self._scanned:
            self._shown.clear()  # a context that shrank (native compaction): read it again
            self._scanned = 0
        for entry in entries[self._scanned :]:
            shown = memory_details(entry)
            path, version = shown.get("path"), shown.get("version")
            if isinstance(path, str) and isinstance(version, str):
                self._shown.setdefault(path, []).append((entry.id, version))
        self._scanned = len(entries)


def resurfacing_enabled(read_settings: bool = True) -> bool:
    """Whether notes come back: the settings file's ``memoryResurfacing``, on by default."""
    return host_setting_in_force(SETTING, read_settings)


def memory_details(entry: Entry) -> dict[str, JsonValue]:
    """What an entry says about a note: a resurfaced note's ``extra["memory"]``, or a memory
    tool result's ``details["memory"]``; empty for anything else."""
    found = entry.extra.get("memory")
    if isinstance(found, dict):
        return found
    details = entry.extra.get("details")
    if entry.tool_name == MEMORY_TOOL and isinstance(details, dict):
        inner = details.get("memory")
        if isinstance(inner, dict):
            return inner
    return {}


def resurfaced_text(note: Note, about: Sequence[str]) -> str:
    """The note as the model reads it after the call that touched its paths."""
    text = note.text
    if len(text) > RESURFACED_CHARS:
        text = text[:RESURFACED_CHARS] + f"\n[... cut; view {note.path} for the rest]"
    return (
        f"[memory] A note about {', '.join(about)} (from {note.path}, which the memory tool "
        f"can view or edit):\n\n{text}"
    )


__all__ = [
    "MAX_NOTES_PER_BATCH",
    "RESURFACED_CHARS",
    "SETTING",
    "Resurfacer",
    "memory_details",
    "resurfaced_text",
    "resurfacing_enabled",
]
