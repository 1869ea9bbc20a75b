"""One memory note as read from its file: its text, title, version and the paths it is about.

A note is a plain Markdown file. It may name the repository paths it is about on its first
line, so a person can write one by hand::

    paths: src/engine.py, docs/

Paths are relative to the repository root, separated by commas; one ending in ``/`` (or
naming a folder) covers everything under it. The same line may sit inside a front-matter
block (``---`` lines around it) at the top of the file. The title is the first ``#`` heading,
else the file's name. The version is the SHA-256 of the note's bytes: an edit is a new
version.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import PurePosixPath

PATHS_LINE = re.compile(r"^\s*paths\s*:\s*(.*?)\s*$", re.IGNORECASE)
"""The line naming the paths a note is about."""

MAX_NOTE_PATHS = 32
"""No more paths are read from one note (a runaway line is cut, never an error)."""


@dataclass(frozen=True, slots=True)
class Note:
    """A note's identity and content."""

    path: str
    """Its path under ``/memories`` as the memory tool names it (``/memories/build.md``)."""
    text: str
    """Its whole text."""
    title: str
    """Its first ``#`` heading, else its file name."""
    about: tuple[str, ...]
    """The repository paths it names, normalised (``src/b/`` for a folder)."""
    version: str
    """SHA-256 of its UTF-8 bytes."""


def version_of(text: str) -> str:
    """A note text's version: the SHA-256 of its UTF-8 bytes."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def note_from_text(path: str, text: str) -> Note:
    """The :class:`Note` a file at ``path`` holding ``text`` is."""
    return Note(path, text, title_of(path, text), paths_named(text), version_of(text))


def paths_named(text: str) -> tuple[str, ...]:
    """The repository paths a note's first line (or its front matter) names."""
    lines = text.splitlines()[:12]
    candidates: list[str] = []
    if lines and lines[0].strip() == "---":
        for line in lines[1:]:
            if line.strip() == "---":
                break
            candidates.append(line)
    elif lines:
        candidates.append(lines[0])
    for line in candidates:
        found = PATHS_LINE.match(line)
        if found is not None:
            named = [normal_path(part) for part in found.group(1).split(",")]
            unique = list(dict.fromkeys(part for part in named if part))
            return tuple(unique[:MAX_NOTE_PATHS])
    return ()


def normal_path(text: str) -> str:
    """A named path as compared with a touched one: relative, ``/``-separated, no ``./``;
    a folder keeps its trailing ``/``. Empty for a path that leaves the repository."""
    cleaned = text.strip().strip("`'\"").replace("\\", "/")
    if not cleaned or cleaned.startswith("/"):
        return ""
    folder = cleaned.endswith("/")
    parts = [part for part in PurePosixPath(cleaned).parts if part not in ("", ".")]
    if not parts or ".." in parts:
        return ""
    joined = "/".join(parts)
    return joined + "/" if folder else joined


def title_of(path: str, text: str) -> str:
    """The first ``#`` heading of ``text`` (bounded), else the last part of ``path``."""
    for line in text.splitlines()[:40]:
        stripped = line.strip()
        if stripped.startswith("#"):
            heading = stripped.lstrip("#").strip()
            if heading:
                return heading[:120]
    return path.rsplit("/", 1)[-1]


def covers(named: str, touched: str) -> bool:
    """Whether a note naming ``named`` is about the repository path ``touched``: the same
    file or folder, a file under a named folder, or a folder whose listing shows the named
    path (its direct parent: listing the root does not bring back every note)."""
    bare = named.rstrip("/")
    target = touched.rstrip("/")
    if not bare:
        return False
    if bare == target or (target and target.startswith(bare + "/")):
        return True
    parent = bare.rsplit("/", 1)[0] if "/" in bare else ""
    return parent == target


__all__ = [
    "MAX_NOTE_PATHS",
    "PATHS_LINE",
    "Note",
    "covers",
    "normal_path",
    "note_from_text",
    "paths_named",
    "title_of",
    "version_of",
]
