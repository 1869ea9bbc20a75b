"""The first, stable system prompt's project part: context files and the memory index.

**Context files.** The user's own ``AGENTS.md`` and ``CLAUDE.md`` in the pifold home
(``~/.pifold``, as Pi reads its global ``AGENTS.md`` and Claude Code ``~/.claude/CLAUDE.md``),
then ``AGENTS.md`` and ``CLAUDE.md`` in every folder from the repository root down to the
working directory, in that order (the general first, the specific last, so the project's
word comes after the user's). Their text is bounded (:data:`MAX_CONTEXT_CHARS` in all);
a file that does not fit whole is cut, and a notice says so and by how much.

**The memory index.** One line per note, project notes first (title, path, the paths it is
about), bounded (:data:`MAX_INDEX_NOTES` lines, :data:`MAX_INDEX_CHARS` characters), so the
model knows what it may ``view`` without the notes' text costing the window.

The section is made once when a session starts and logged with the session
(:mod:`pifold_agent.memory.session_prompt`), so the prompt's bytes stay fixed for the
session's life: a later edit of a file or a note reaches the model only as an append.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pifold_agent.memory.locations import repository_root
from pifold_agent.memory.notes import Note
from pifold_agent.sessions.paths import pifold_home

CONTEXT_FILE_NAMES: tuple[str, ...] = ("AGENTS.md", "CLAUDE.md")
"""The context files looked for in each folder, in the order they are read."""

MAX_CONTEXT_CHARS = 24_000
"""All context files together carry at most this many characters into the prompt."""

MAX_INDEX_NOTES = 60
"""The memory index lists at most this many notes."""

MAX_INDEX_CHARS = 6_000
"""The memory index is at most this long."""


def context_files(cwd: Path, home: Path | None = None) -> list[Path]:
    """Every context file in reading order: the user's (in ``home``, the pifold home by
    default), then the project's from the repository root down to ``cwd``."""
    here = Path(cwd).resolve()
    root = repository_root(here)
    folders = [here, *here.parents]
    chain = list(reversed(folders[: folders.index(root) + 1])) if root in folders else [here]
    user = (home if home is not None else pifold_home()).resolve()
    if user not in chain:  # a session run inside the home itself reads its files once
        chain.insert(0, user)
    found: list[Path] = []
    for folder in chain:
        for name in CONTEXT_FILE_NAMES:
            path = folder / name
            if path.is_file():
                found.append(path)
    return found


def context_section(cwd: Path, limit: int = MAX_CONTEXT_CHARS, home: Path | None = None) -> str:
    """The context files as one prompt section ("" when there are none)."""
    files = context_files(cwd, home)
    if not files:
        return ""
    root = repository_root(cwd)
    parts = ["# Project context", "", "Instructions from the project's context files:"]
    room = limit
    for path in files:
        try:
            text = path.read_text("utf-8", "replace")
        except OSError as error:
            parts += ["", f"## {shown(path, root)}", f"[not read: {error.strerror or error}]"]
            continue
        if len(text) > room:
            cut = (
                f"\n[... {shown(path, root)} cut: {room:,} of {len(text):,} characters shown; "
                f"context files carry at most {limit:,} in all]"
            )
            text = text[:room] + cut
        room = max(0, room - len(text))
        parts += ["", f"## {shown(path, root)}", "", text.rstrip("\n")]
    return "\n".join(parts)


def memory_index(notes: Sequence[Note]) -> str:
    """The memory index as one prompt section ("" when there are no notes)."""
    if not notes:
        return ""
    lines = [
        "# Memory",
        "",
        "Notes from earlier sessions (read one with the memory tool's view; a note about a "
        "path comes back by itself when you touch that path):",
    ]
    used = sum(len(line) + 1 for line in lines)
    for listed, note in enumerate(notes):
        about = f" (about {', '.join(note.about)})" if note.about else ""
        line = f"- {note.path}: {note.title}{about}"
        if listed == MAX_INDEX_NOTES or used + len(line) + 1 > MAX_INDEX_CHARS:
            lines.append(f"[... {len(notes) - listed} more notes; view /memories to list them]")
            break
        lines.append(line)
        used += len(line) + 1
    return "\n".join(lines)


def shown(path: Path, root: Path) -> str:
    """A context file's path as the prompt names it: relative to the repository root, the
    user's own as ``~/...`` when it sits under the home folder."""
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        pass
    try:
        return "~/" + path.relative_to(Path.home().resolve()).as_posix()
    except (ValueError, RuntimeError):  # RuntimeError: no home folder can be found
        return str(path)


__all__ = [
    "CONTEXT_FILE_NAMES",
    "MAX_CONTEXT_CHARS",
    "MAX_INDEX_CHARS",
    "MAX_INDEX_NOTES",
    "context_files",
    "context_section",
    "memory_index",
]
