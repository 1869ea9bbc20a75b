"""``ls``: one folder's entries, alphabetical regardless of case, folders marked with ``/``.

Dotfiles are listed; an empty folder says ``(empty directory)``. At most ``limit`` entries
(500 by default) and 50 KB, with a notice when either limit is reached. A name that is not
UTF-8 is shown with replacement characters (the batch makes every result admissible); an
entry whose kind cannot be read (a link loop) is listed as a file.

A listing never shows a write's temporary file: the batch runs it after every earlier
write into the folder and before every later one (:mod:`pifold_agent.loop.call_order`).
"""

from __future__ import annotations

import os
from pathlib import Path

from pifold_agent.tools.arguments import (
    ToolInputError,
    failure,
    optional_integer,
    optional_string,
    resolve_path,
)
from pifold_agent.tools.blocking import in_thread
from pifold_agent.tools.built_in import BuiltIn
from pifold_agent.tools.protocol import (
    Footprint,
    ToolContext,
    ToolOutcome,
    ToolTraits,
    Touches,
)
from pifold_agent.tools.truncation import MAX_BYTES, format_size, output_limit, truncate_head
from pifold_core.canonical import JsonValue

DEFAULT_LIMIT = 500
"""Entries listed unless the call asks for another limit."""


def listing(folder: Path, limit: int, max_bytes: int = MAX_BYTES) -> ToolOutcome:
    """The ls result for an existing folder."""
    try:
        children = list(os.scandir(folder))
    except OSError as error:
        return failure(f"Cannot list {folder}: {error.strerror}")
    names = sorted(
        (child.name + "/" if _is_folder(child) else child.name for child in children),
        key=lambda name: (name.lower(), name),
    )
    if not names:
        return ToolOutcome("(empty directory)", details={"entries": 0})
    shown = names[:limit]
    truncation = truncate_head("\n".join(shown), max_lines=len(shown) + 1, max_bytes=max_bytes)
    notices: list[str] = []
    if len(names) > limit:
        notices.append(f"{limit} entries limit reached. Use limit={limit * 2} for more")
    if truncation.truncated:
        notices.append(f"{format_size(max_bytes)} limit reached")
    output = truncation.content
    if notices:
        output += "\n\n[" + ". ".join(notices) + "]"
    details: dict[str, JsonValue] = {
        "entries": len(shown),
        "entryLimitReached": len(names) > limit,
        "truncation": truncation.to_details(),
    }
    return ToolOutcome(output, details=details)


def _is_folder(child: os.DirEntry[str]) -> bool:
    try:
        return child.is_dir()
    except OSError:  # a symbolic link loop, a lookup denied
        return False


def listed_folder(arguments: dict[str, JsonValue], cwd: Path) -> Footprint:
    """The footprint of ls, grep and find: the folder (or file) searched, as a tree."""
    try:
        return Footprint(trees=(resolve_path(optional_string(arguments, "path") or ".", cwd),))
    except ToolInputError:
        return Footprint()


PARAMETERS: dict[str, JsonValue] = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "Folder to list (default: .)."},
        "limit": {"type": "integer", "description": "Most entries to list (default 500)."},
    },
    "required": [],
}
"""The JSON schema of the arguments."""


class LsTool:
    """Pi's ``ls``."""

    name = "ls"
    traits = ToolTraits(Touches.SEARCHES, headline=("path",), position=6)
    description = (
        "List a folder's entries alphabetically, dotfiles included, folders ending in /. "
        "At most 500 entries unless limit says otherwise."
    )

    @property
    def parameters(self) -> dict[str, JsonValue]:
        return PARAMETERS

    def footprint(self, arguments: dict[str, JsonValue], cwd: Path) -> Footprint:
        """The folder listed."""
        return listed_folder(arguments, cwd)

    async def run(self, arguments: dict[str, JsonValue], context: ToolContext) -> ToolOutcome:
        try:
            shown = optional_string(arguments, "path") or "."
            folder = resolve_path(shown, context.cwd)
            limit = optional_integer(arguments, "limit", 1) or DEFAULT_LIMIT
        except ToolInputError as error:
            return failure(f"ls: {error}")
        if not folder.exists():
            return failure(f"Path not found: {shown}")
        if not folder.is_dir():
            return failure(f"Not a directory: {shown}")
        return await in_thread(listing, folder, limit, output_limit(context.result_limit_bytes))


TOOL = BuiltIn(LsTool)
"""How :mod:`pifold_agent.tools.registry` finds and builds ``ls``."""


__all__ = ["DEFAULT_LIMIT", "TOOL", "LsTool", "listed_folder", "listing"]
