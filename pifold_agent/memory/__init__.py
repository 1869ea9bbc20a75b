"""Memory: notes that outlive a session, and the project's context files.

* :mod:`~pifold_agent.memory.locations`: where notes live (per project, per user).
* :mod:`~pifold_agent.memory.notes`: one note, its title and the paths it is about.
* :mod:`~pifold_agent.memory.store`: the ``/memories`` path space, its refusals, atomic writes.
"""

from __future__ import annotations

from pathlib import Path

from pifold_agent.memory.locations import project_folder, repository_root, user_folder
from pifold_agent.memory.notes import Note
from pifold_agent.memory.store import MAX_NOTE_BYTES, MemoryStore, MemoryStoreError


def store_for(cwd: Path) -> MemoryStore:
    """The memory store of the project ``cwd`` is in, and of the user."""
    return MemoryStore(project_folder(cwd), user_folder())


__all__ = [
    "MAX_NOTE_BYTES",
    "MemoryStore",
    "MemoryStoreError",
    "Note",
    "project_folder",
    "repository_root",
    "store_for",
    "user_folder",
]
