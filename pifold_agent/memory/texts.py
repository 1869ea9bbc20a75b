"""The memory tool's result texts, shaped as Anthropic's reference implementation shapes them.

Claude models are trained on the memory tool's results as Anthropic's own client writes them
(the ``anthropic`` SDK's ``BetaLocalFilesystemMemoryTool``, checked against version 2.15), so
the tool returns the same shapes: a folder listing of two levels with human sizes and folders
ending in ``/``, a note with six-column line numbers, and after ``str_replace`` the changed
line with two lines either side. Only what a size counts differs: a folder's figure here is
the bytes of the notes inside it, not the folder inode's size, which says nothing to a model.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pifold_agent.memory.store import note_files

LINE_NUMBER_WIDTH = 6
"""Columns of a line number (the reference's: the digits of its 999,999-line limit)."""

LISTING_DEPTH = 2
"""Levels below the viewed folder a listing shows."""

SNIPPET_CONTEXT = 2
"""Lines shown either side of the line a ``str_replace`` changed."""


def human_size(count: int) -> str:
    """``0B``, ``512B``, ``1.5K``, ``2M``: a size as the reference listing prints it."""
    if count <= 0:
        return "0B"
    units = ("B", "K", "M", "G")
    power = min((count.bit_length() - 1) // 10, len(units) - 1)
    scaled = count / 1024**power
    return (
        f"{int(scaled)}{units[power]}" if scaled == int(scaled) else f"{scaled:.1f}{units[power]}"
    )


def folder_bytes(folder: Path) -> int:
    """The bytes of the notes under ``folder`` (0 when it does not exist yet)."""
    return sum(path.stat().st_size for path in note_files(folder)) if folder.is_dir() else 0


def listing_rows(folder: Path, virtual: str, depth: int = 1) -> list[str]:
    """``size<TAB>path`` rows for what sits under ``folder`` down to :data:`LISTING_DEPTH`:
    visible names only, sorted, never through a symbolic link (it could lead out)."""
    rows: list[str] = []
    if depth > LISTING_DEPTH or not folder.is_dir():
        return rows
    for item in sorted(folder.iterdir(), key=lambda path: path.name):
        if item.name.startswith(".") or item.is_symlink():
            continue
        if item.is_dir():
            rows.append(f"{human_size(folder_bytes(item))}\t{virtual}/{item.name}/")
            rows += listing_rows(item, f"{virtual}/{item.name}", depth + 1)
        elif item.is_file():
            rows.append(f"{human_size(item.stat().st_size)}\t{virtual}/{item.name}")
    return rows


def listing(virtual: str, rows: Sequence[str], total: int) -> str:
    """A folder's listing: the reference's header, the folder's own row, then ``rows``."""
    header = (
        f"Here're the files and directories up to {LISTING_DEPTH} levels deep in {virtual}, "
        "excluding hidden items:"
    )
    return "\n".join([header, f"{human_size(total)}\t{virtual}", *rows])


def numbered(lines: Sequence[str], first: int) -> str:
    """Lines with right-aligned numbers from ``first``, a tab between number and line."""
    return "\n".join(
        f"{number:{LINE_NUMBER_WIDTH}d}\t{line}" for number, line in enumerate(lines, first)
    )


def replaced_snippet(text: str, position: int) -> str:
    """The result of a ``str_replace`` whose new text starts at ``position`` of ``text``."""
    lines = text.split("\n")
    changed = text[:position].count("\n")
    start = max(0, changed - SNIPPET_CONTEXT)
    end = min(len(lines), changed + SNIPPET_CONTEXT + 1)
    return (
        "The memory file has been edited. Here is the snippet showing the change (with line "
        "numbers):\n" + numbered(lines[start:end], start + 1)
    )


__all__ = [
    "LINE_NUMBER_WIDTH",
    "LISTING_DEPTH",
    "SNIPPET_CONTEXT",
    "folder_bytes",
    "human_size",
    "listing",
    "listing_rows",
    "numbered",
    "replaced_snippet",
]
