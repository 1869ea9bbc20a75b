"""Where memory notes live: one folder per project and one for the user, under the pifold home.

Notes sit outside every session so a new session finds them: ``$PIFOLD_HOME/memory/<project>/``
holds a project's notes and ``$PIFOLD_HOME/memory/user/`` the user's own (``PIFOLD_HOME``
replaces ``~/.pifold``, :func:`pifold_agent.sessions.paths.pifold_home`). A project is its
repository: the nearest folder at or above the working directory holding a ``.git`` (a
folder, or the file a worktree or submodule has), else the working directory itself. Its
folder is named ``<basename>-<12 hex digits of the SHA-256 of its absolute path>``: readable
in a listing, and two projects of one name in different places never share notes.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from pifold_agent.sessions.paths import pifold_home

MEMORY_FOLDER = "memory"
"""The folder under the pifold home holding every note folder."""

USER_FOLDER = "user"
"""The user-wide note folder's name (no project folder can take it: those carry a hash)."""

KEY_DIGITS = 12
"""Hex digits of the path's digest in a project folder's name."""

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def repository_root(cwd: Path) -> Path:
    """The nearest folder at or above ``cwd`` (resolved) holding ``.git``, else ``cwd``."""
    start = Path(cwd).resolve()
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return start


def project_key(root: Path) -> str:
    """``<basename>-<short hash of the absolute path>``: a project's folder name."""
    absolute = str(Path(root).resolve())
    digest = hashlib.sha256(absolute.encode("utf-8", "surrogateescape")).hexdigest()
    base = _UNSAFE.sub("-", Path(absolute).name).strip("-.") or "root"
    return f"{base[:48]}-{digest[:KEY_DIGITS]}"


def memory_home() -> Path:
    """``$PIFOLD_HOME/memory`` (``~/.pifold/memory``)."""
    return pifold_home() / MEMORY_FOLDER


def project_folder(cwd: Path, home: Path | None = None) -> Path:
    """The notes folder of the project ``cwd`` belongs to (not created here)."""
    return (home if home is not None else memory_home()) / project_key(repository_root(cwd))


def user_folder(home: Path | None = None) -> Path:
    """The user-wide notes folder (not created here)."""
    return (home if home is not None else memory_home()) / USER_FOLDER


__all__ = [
    "KEY_DIGITS",
    "MEMORY_FOLDER",
    "USER_FOLDER",
    "memory_home",
    "project_folder",
    "project_key",
    "repository_root",
    "user_folder",
]
