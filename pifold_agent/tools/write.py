"""``write``: create or overwrite a file, creating its folders.

The new content goes to a temporary file beside the target, is fsynced and then renamed
over it, so a crash leaves either the old file or the new one, never half of each. An
existing file keeps its permission bits.
"""

from __future__ import annotations

import asyncio
import os
import stat
import tempfile
from pathlib import Path

from pifold_agent.loop.tool_protocol import ToolContext, ToolOutcome
from pifold_agent.tools.arguments import ToolInputError, failure, required_string, resolve_path
from pifold_core.canonical import JsonValue


def write_atomically(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` in one rename (folders created as needed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = stat.S_IMODE(path.stat().st_mode) if path.exists() else None
    descriptor, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(temporary, mode)
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(temporary, 0o666 & ~umask)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


PARAMETERS: dict[str, JsonValue] = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "File to write, relative or absolute."},
        "content": {"type": "string", "description": "The file's complete new content."},
    },
    "required": ["path", "content"],
}
"""The JSON schema of the arguments."""


class WriteTool:
    """Pi's ``write``."""

    name = "write"
    description = (
        "Write a file, creating it (and its folders) or replacing its whole content. "
        "Use edit to change part of an existing file."
    )

    @property
    def parameters(self) -> dict[str, JsonValue]:
        return PARAMETERS

    async def run(self, arguments: dict[str, JsonValue], context: ToolContext) -> ToolOutcome:
        try:
            shown = required_string(arguments, "path")
            content = required_string(arguments, "content")
            path = resolve_path(shown, context.cwd)
        except ToolInputError as error:
            return failure(f"write: {error}")
        if path.is_dir():
            return failure(f"{shown} is a directory")
        try:
            await asyncio.to_thread(write_atomically, path, content.encode("utf-8", "replace"))
        except OSError as error:
            return failure(f"Cannot write {shown}: {error.strerror or error}")
        return ToolOutcome(f"Successfully wrote {len(content)} bytes to {shown}")


__all__ = ["WriteTool", "write_atomically"]
