"""The host's own notes in the session log (:meth:`pifold_core.engine.Engine.note`).

A host (the replay driver, say) logs what decides its future behaviour beside the engine's
records, so a host killed at any point resumes exactly; the notes change no engine state and
come back, as logged, on reopen.
"""

from __future__ import annotations

from dataclasses import dataclass

from pifold_core.canonical import JsonValue


@dataclass(frozen=True, slots=True)
class HostNote:
    """A note the host logged about its own progress."""

    sequence: int
    """Its record's position in the session log."""
    body: dict[str, JsonValue]
    """What the host wrote, as it wrote it."""


__all__ = ["HostNote"]
