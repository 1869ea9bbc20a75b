"""The prompt section a session starts with, kept in its log so it never changes.

At a session's first start, the context files and the memory index
(:mod:`pifold_agent.memory.context_files`) are read into one section of the system prompt,
and the section is logged as a host note (:meth:`pifold_core.engine.Engine.note`). A resumed
session takes the logged section back instead of reading the files again: what decides the
prompt's bytes lives in the log, so an edited ``AGENTS.md`` or a new note never rewrites a
prefix the provider has cached. (The date the prompt carries still follows the calendar.)
A ``--no-fold`` session has no engine log and reads the files at every start.
"""

from __future__ import annotations

from pathlib import Path

from pifold_agent.memory.context_files import context_section, memory_index
from pifold_agent.memory.store import MemoryStore
from pifold_core.engine import Engine

NOTE_KEY = "memoryPrompt"
"""The host note's key holding the logged section."""


def fresh_section(cwd: Path, store: MemoryStore) -> str:
    """The section as the files and notes are now ("" when there is nothing to say)."""
    parts = [part for part in (context_section(cwd), memory_index(store.notes())) if part]
    return "\n\n".join(parts)


def logged_section(engine: Engine | None) -> str | None:
    """The section a session logged when it started; ``None`` when it logged none."""
    if engine is None:
        return None
    for note in engine.view.host_notes:
        value = note.body.get(NOTE_KEY)
        if isinstance(value, str):
            return value
    return None


def session_section(engine: Engine | None, cwd: Path, store: MemoryStore) -> tuple[str, bool]:
    """The section this session's prompt carries, and whether it still has to be logged
    (:func:`log_section`, once the run's checks have passed)."""
    logged = logged_section(engine)
    if logged is not None:
        return logged, False
    return fresh_section(cwd, store), engine is not None


def log_section(engine: Engine, section: str) -> None:
    """Log the section a new session started with."""
    engine.note({NOTE_KEY: section})


__all__ = ["NOTE_KEY", "fresh_section", "log_section", "logged_section", "session_section"]
