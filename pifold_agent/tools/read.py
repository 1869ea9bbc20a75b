"""``read``: a text file's lines (with ``offset`` and ``limit``), or an image.

Text is cut to the shared limits from the first line asked for; the result ends with a
notice that says which lines it shows and the ``offset`` to continue from. A line too long
to show at all gets a pointer to ``sed`` through bash. Images (PNG, JPEG, GIF, WebP, known
by their first bytes, not their names) come back as an image block with a short note; they
are not resized, since no imaging library is bundled.
"""

from __future__ import annotations

import asyncio
import base64
from pathlib import Path

from pifold_agent.loop.tool_protocol import ToolContext, ToolOutcome
from pifold_agent.tools.arguments import (
    ToolInputError,
    failure,
    optional_integer,
    required_string,
    resolve_path,
)
from pifold_agent.tools.truncation import MAX_BYTES, byte_length, format_size, truncate_head
from pifold_core.canonical import JsonValue
from pifold_core.entries import ImageBlock

IMAGE_SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)


def image_type(data: bytes) -> str | None:
    """The MIME type of an image the model can be shown, from its first bytes."""
    for signature, media_type in IMAGE_SIGNATURES:
        if data.startswith(signature):
            return media_type
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def read_text(path: Path, shown: str, offset: int | None, limit: int | None) -> ToolOutcome:
    """The read tool's result for a text file's content."""
    text = path.read_bytes().decode("utf-8", "replace")
    lines = text.split("\n")
    start = offset - 1 if offset is not None else 0
    if start >= len(lines):
        return failure(f"Offset {offset} is beyond end of file ({len(lines)} lines total)")
    end = min(len(lines), start + limit) if limit is not None else len(lines)
    selected = "\n".join(lines[start:end])
    truncation = truncate_head(selected)
    details: dict[str, JsonValue] = {"truncation": truncation.to_details()}
    first = start + 1
    if truncation.first_line_exceeds_limit:
        size = format_size(byte_length(lines[start]))
        output = (
            f"[Line {first} is {size}, exceeds {format_size(MAX_BYTES)} limit. "
            f"Use bash: sed -n '{first}p' {shown} | head -c {MAX_BYTES}]"
        )
    elif truncation.truncated:
        last = first + truncation.output_lines - 1
        limit_note = (
            "" if truncation.truncated_by == "lines" else f" ({format_size(MAX_BYTES)} limit)"
        )
        output = (
            f"{truncation.content}\n\n[Showing lines {first}-{last} of {len(lines)}{limit_note}. "
            f"Use offset={last + 1} to continue.]"
        )
    elif end < len(lines):
        output = (
            f"{truncation.content}\n\n[{len(lines) - end} more lines in file. "
            f"Use offset={end + 1} to continue.]"
        )
    else:
        output = truncation.content
    return ToolOutcome(output, details=details)


PARAMETERS: dict[str, JsonValue] = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "File to read, relative or absolute."},
        "offset": {"type": "integer", "description": "First line to read (1-based)."},
        "limit": {"type": "integer", "description": "How many lines to read at most."},
    },
    "required": ["path"],
}
"""The JSON schema of the arguments."""


class ReadTool:
    """Pi's ``read``."""

    name = "read"
    description = (
        "Read a file. Text files come back as lines, at most 2000 lines or 50KB at a time; "
        "use offset and limit for large files, and follow the notice at the end to continue. "
        "Images (png, jpg, gif, webp) come back as images."
    )

    @property
    def parameters(self) -> dict[str, JsonValue]:
        return PARAMETERS

    async def run(self, arguments: dict[str, JsonValue], context: ToolContext) -> ToolOutcome:
        try:
            shown = required_string(arguments, "path")
            path = resolve_path(shown, context.cwd)
            offset = optional_integer(arguments, "offset", 1)
            limit = optional_integer(arguments, "limit", 1)
        except ToolInputError as error:
            return failure(f"read: {error}")
        return await asyncio.to_thread(self._read, path, shown, offset, limit)

    def _read(self, path: Path, shown: str, offset: int | None, limit: int | None) -> ToolOutcome:
        if not path.exists():
            return failure(f"File not found: {shown}")
        if path.is_dir():
            return failure(f"{shown} is a directory; use ls to list it")
        try:
            with path.open("rb") as handle:
                head = handle.read(16)
            media_type = image_type(head)
            if media_type is not None:
                data = base64.b64encode(path.read_bytes()).decode("ascii")
                return ToolOutcome(
                    f"Read image file [{media_type}]",
                    images=(ImageBlock(media_type, data),),
                    details={"mimeType": media_type},
                )
            return read_text(path, shown, offset, limit)
        except OSError as error:
            return failure(f"Cannot read {shown}: {error.strerror}")


__all__ = ["IMAGE_SIGNATURES", "ReadTool", "image_type", "read_text"]
