"""The result of importing a trace, and the error raised when a file cannot be imported."""

from __future__ import annotations

from dataclasses import dataclass

from pifold_core.entries import Entry

TRACE_FORMATS: tuple[str, ...] = (
    "pi-v1",
    "pi-v3",
    "claude-code",
    "codex",
    "mini-swe-agent",
    "swe-agent",
    "gemini-cli",
)
"""Every format name :func:`load_trace` can report."""


@dataclass(frozen=True)
class ImportedTrace:
    """A real agent session turned into transcript entries, in the model's view."""

    format: str
    """One of :data:`TRACE_FORMATS`."""
    entries: list[Entry]
    """The messages the model saw, in order; every assistant entry is exactly one model request."""
    skipped_lines: int
    """Lines that could not be parsed and were skipped."""
    notes: list[str]
    """Human-readable warnings: native compactions seen, orphan results, dropped turns, ..."""


class TraceFormatError(ValueError):
    """The file is empty, unreadable or not a known trace format; the message names the file."""
