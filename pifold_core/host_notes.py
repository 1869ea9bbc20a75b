"""The host's own notes in the session log (:meth:`pifold_core.engine.Engine.note`).

A host (the replay driver, say) logs what decides its future behaviour beside the engine's
records, so a host killed at any point resumes exactly; the notes change no engine state and
come back, as logged, on reopen.
"""

from __future__ import annotations

from dataclasses import dataclass

from pifold_core.canonical import CanonicalError, JsonValue, wire_bytes
from pifold_core.engine_errors import EngineError
from pifold_core.journal import Journal


@dataclass(frozen=True, slots=True)
class HostNote:
    """A note the host logged about its own progress."""

    sequence: int
    """Its record's position in the session log."""
    body: dict[str, JsonValue]
    """What the host wrote, as it wrote it."""


def log_note(journal: Journal, body: dict[str, JsonValue]) -> HostNote:
    """Check ``body`` is a plain JSON object and log it as a host note.

    Raises:
        EngineError: not a JSON object with string keys, or not plain JSON (nothing logged).
    """
    if not isinstance(body, dict) or not all(isinstance(key, str) for key in body):
        raise EngineError(f"a note must be a JSON object, got {type(body).__name__}")
    try:
        wire_bytes(body)  # what the log writes: a lone surrogate is refused here too
    except CanonicalError as error:
        raise EngineError(f"a note must be plain JSON: {error}") from None
    return HostNote(journal.append("host", {"note": body}), body)


__all__ = ["HostNote", "log_note"]
