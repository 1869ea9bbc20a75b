"""``write``: create or overwrite a file, creating its folders.

How the bytes land is :mod:`pifold_agent.tools.file_writing`'s: through symbolic links to
their target (the link stays a link), in place for a file with several hard links, and
otherwise atomically (a temporary file beside the target, synced, renamed over it), keeping
the file's mode. A folder, a FIFO, a device or a socket at the path is refused.
"""

from __future__ import annotations

from pathlib import Path

from pifold_agent.tools.arguments import ToolInputError, failure, required_string, resolve_path
from pifold_agent.tools.blocking import NotRegularFile, in_thread
from pifold_agent.tools.built_in import BuiltIn
from pifold_agent.tools.file_writing import write_file
from pifold_agent.tools.protocol import (
    Footprint,
    ToolContext,
    ToolOutcome,
    ToolTraits,
    Touches,
)
from pifold_core.canonical import JsonValue

PARAMETERS: dict[str, JsonValue] = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "File to write, relative or absolute."},
        "content": {"type": "string", "description": "The file's complete new content."},
    },
    "required": ["path", "content"],
}
"""The JSON schema of the arguments."""


def written_path(arguments: dict[str, JsonValue], cwd: Path) -> Footprint:
    """The footprint of write and edit: the one file named by ``path``."""
    try:
        return Footprint(writes=(resolve_path(required_string(arguments, "path"), cwd),))
    except ToolInputError:
        return Footprint()


class WriteTool:
    """Pi's ``write``."""

    name = "write"
    traits = ToolTraits(
        Touches.MODIFIES_FILE,
        asks_approval=True,
        headline=("path",),
        position=3,
        in_default_set=True,
    )
    description = (
        "Write a file, creating it (and its folders) or replacing its whole content. "
        "Use edit to change part of an existing file."
    )

    @property
    def parameters(self) -> dict[str, JsonValue]:
        return PARAMETERS

    def footprint(self, arguments: dict[str, JsonValue], cwd: Path) -> Footprint:
        """The file written."""
        return written_path(arguments, cwd)

    async def run(self, arguments: dict[str, JsonValue], context: ToolContext) -> ToolOutcome:
        try:
            shown = required_string(arguments, "path")
            content = required_string(arguments, "content")
            path = resolve_path(shown, context.cwd)
        except ToolInputError as error:
            return failure(f"write: {error}")
        try:
            await in_thread(write_file, path, shown, content.encode("utf-8", "replace"))
        except NotRegularFile as error:
            return failure(str(error))
        except OSError as error:
            return failure(f"Cannot write {shown}: {error.strerror or error}")
        return ToolOutcome(f"Successfully wrote {len(content)} bytes to {shown}")


TOOL = BuiltIn(WriteTool)
"""How :mod:`pifold_agent.tools.registry` finds and builds ``write``."""


__all__ = ["TOOL", "WriteTool", "written_path"]
