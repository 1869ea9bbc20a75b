"""``read``: a text file's lines (with ``offset`` and ``limit``), or an image.

Text is cut to the shared limits from the first line asked for; the result ends with a
notice that says which lines it shows and the ``offset`` to continue from. A line too long
to show at all gets a pointer to ``sed`` through bash. Images (PNG, JPEG, GIF, WebP, known
by their first bytes, not their names) come back as an image block with a short note.

**Only what is returned is read.** The file is streamed line by line
(:class:`~pifold_agent.tools.line_stream.LineStream`) up to the lines shown and the 50 KB
cap; past that, at most :data:`SCAN_BEYOND_BYTES` more are read, only to count the lines
left for the notice (a bigger rest is named by the file's size instead). So a 2 GB file,
or a 2 GB line, costs one screen of memory.

**Refused:** anything that is not a regular file (a FIFO, a device such as ``/dev/zero``, a
socket, a folder), checked before it is opened (:mod:`~pifold_agent.tools.blocking`).

**Images are capped, not resized:** no imaging library is bundled, so an image over
:data:`IMAGE_MAX_BYTES` (the size whose base64 form is the 5 MB the providers accept) is
refused with its size and what to do, before its bytes are read. A downscale would need a
decoder for four formats; a clear refusal the model can act on (make a smaller copy with
the tools the machine has) keeps the session from ever holding a 30 MB picture.
"""

from __future__ import annotations

import base64
import os
import stat
from pathlib import Path
from typing import BinaryIO

from pifold_agent.tools.arguments import (
    ToolInputError,
    failure,
    optional_integer,
    required_string,
    resolve_path,
)
from pifold_agent.tools.blocking import NotRegularFile, existing_kind, in_thread, open_regular
from pifold_agent.tools.built_in import BuiltIn
from pifold_agent.tools.line_stream import Line, LineStream
from pifold_agent.tools.protocol import (
    Footprint,
    ToolContext,
    ToolOutcome,
    ToolTraits,
    Touches,
)
from pifold_agent.tools.truncation import (
    MAX_BYTES,
    MAX_LINES,
    byte_length,
    format_size,
    output_limit,
    truncate_head,
)
from pifold_core.canonical import JsonValue
from pifold_core.entries import ImageBlock

IMAGE_SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)

IMAGE_MAX_BYTES = 5 * 1024 * 1024 * 3 // 4
"""The largest image sent (3.75 MB): its base64 form is 5 MB, the providers' limit."""

SCAN_BEYOND_BYTES = 1024 * 1024
"""Bytes read past what is shown, only to count the lines left (or a long line's size)."""


def image_type(data: bytes) -> str | None:
    """The MIME type of an image the model can be shown, from its first bytes."""
    for signature, media_type in IMAGE_SIGNATURES:
        if data.startswith(signature):
            return media_type
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def read_text(
    handle: BinaryIO,
    size: int,
    shown: str,
    offset: int | None,
    limit: int | None,
    max_bytes: int = MAX_BYTES,
) -> ToolOutcome:
    """The read tool's result for a text file, reading only what it shows: at most
    ``max_bytes`` of lines (see :func:`~pifold_agent.tools.truncation.output_limit`)."""
    stream = LineStream(handle)
    start = offset - 1 if offset is not None else 0
    for _ in range(start):
        if stream.line(0) is None:
            break
    wanted = min(limit, MAX_LINES + 1) if limit is not None else MAX_LINES + 1
    lines: list[Line] = []
    texts: list[str] = []
    used = -1
    while len(texts) < wanted:
        line = stream.line(max_bytes + 1, SCAN_BEYOND_BYTES)
        if line is None:
            break
        lines.append(line)
        texts.append(line.kept.decode("utf-8", "replace"))
        used += byte_length(texts[-1]) + 1
        if used > max_bytes or not line.complete:
            break  # this line does not fit: the truncation below says so
    if not texts:
        return failure(f"Offset {offset} is beyond end of file ({stream.delivered} lines total)")
    truncation = truncate_head("\n".join(texts), max_bytes=max_bytes)
    details: dict[str, JsonValue] = {"truncation": truncation.to_details(), "fileBytes": size}
    first = start + 1

    def total() -> int | None:
        if not lines[-1].complete:
            return None
        rest = stream.count_rest(SCAN_BEYOND_BYTES)
        return None if rest is None else stream.delivered + rest

    if truncation.first_line_exceeds_limit:
        line_size = (
            format_size(lines[0].length)
            if lines[0].complete
            else f"over {format_size(SCAN_BEYOND_BYTES)}"
        )
        output = (
            f"[Line {first} is {line_size}, exceeds {format_size(max_bytes)} limit. "
            f"Use bash: sed -n '{first}p' {shown} | head -c {max_bytes}]"
        )
    elif truncation.truncated:
        last = first + truncation.output_lines - 1
        limit_note = (
            "" if truncation.truncated_by == "lines" else f" ({format_size(max_bytes)} limit)"
        )
        counted = total()
        of = str(counted) if counted is not None else f"a {format_size(size)} file"
        output = (
            f"{truncation.content}\n\n[Showing lines {first}-{last} of {of}{limit_note}. "
            f"Use offset={last + 1} to continue.]"
        )
    else:
        rest = stream.count_rest(SCAN_BEYOND_BYTES)
        after = first + len(texts)
        if rest == 0:
            output = truncation.content
        elif rest is None:
            output = (
                f"{truncation.content}\n\n[More lines in file ({format_size(size)} in all). "
                f"Use offset={after} to continue.]"
            )
        else:
            output = (
                f"{truncation.content}\n\n[{rest} more lines in file. "
                f"Use offset={after} to continue.]"
            )
    return ToolOutcome(output, details=details)


def read_image(
    handle: BinaryIO, head: bytes, size: int, shown: str, media_type: str
) -> ToolOutcome:
    """An image block, or a refusal naming the size when it is over the cap."""
    data = head
    if size <= IMAGE_MAX_BYTES:
        data += handle.read(IMAGE_MAX_BYTES + 1 - len(head))  # bounded if the file grows
    if size > IMAGE_MAX_BYTES or len(data) > IMAGE_MAX_BYTES:
        return failure(
            f"{shown} is a {format_size(max(size, len(data)))} {media_type} image; read sends "
            f"images of at most {format_size(IMAGE_MAX_BYTES)} (the providers refuse larger "
            "ones). Make a smaller copy (fewer pixels, or JPEG) with bash and read that."
        )
    return ToolOutcome(
        f"Read image file [{media_type}]",
        images=(ImageBlock(media_type, base64.b64encode(data).decode("ascii")),),
        details={"mimeType": media_type},
    )


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
    traits = ToolTraits(Touches.READS_FILE, headline=("path",), position=0, in_default_set=True)
    description = (
        "Read a file. Text files come back as lines, at most 2000 lines or 50KB at a time; "
        "use offset and limit for large files, and follow the notice at the end to continue. "
        "Images (png, jpg, gif, webp) come back as images."
    )

    @property
    def parameters(self) -> dict[str, JsonValue]:
        return PARAMETERS

    def footprint(self, arguments: dict[str, JsonValue], cwd: Path) -> Footprint:
        """The file read."""
        try:
            return Footprint(reads=(resolve_path(required_string(arguments, "path"), cwd),))
        except ToolInputError:
            return Footprint()

    async def run(self, arguments: dict[str, JsonValue], context: ToolContext) -> ToolOutcome:
        try:
            shown = required_string(arguments, "path")
            path = resolve_path(shown, context.cwd)
            offset = optional_integer(arguments, "offset", 1)
            limit = optional_integer(arguments, "limit", 1)
        except ToolInputError as error:
            return failure(f"read: {error}")
        cut = output_limit(context.result_limit_bytes)
        return await in_thread(self._read, path, shown, offset, limit, cut)

    def _read(
        self, path: Path, shown: str, offset: int | None, limit: int | None, max_bytes: int
    ) -> ToolOutcome:
        try:
            mode = existing_kind(path)
            if mode is None:
                return failure(f"File not found: {shown}")
            if stat.S_ISDIR(mode):
                return failure(f"{shown} is a directory; use ls to list it")
            with open_regular(path, shown) as handle:
                size = os.fstat(handle.fileno()).st_size
                head = handle.read(16)
                media_type = image_type(head)
                if media_type is not None:
                    return read_image(handle, head, size, shown, media_type)
                handle.seek(0)
                return read_text(handle, size, shown, offset, limit, max_bytes)
        except NotRegularFile as error:
            return failure(str(error))
        except OSError as error:
            return failure(f"Cannot read {shown}: {error.strerror or error}")


TOOL = BuiltIn(ReadTool)
"""How :mod:`pifold_agent.tools.registry` finds and builds ``read``."""


__all__ = [
    "IMAGE_MAX_BYTES",
    "IMAGE_SIGNATURES",
    "SCAN_BEYOND_BYTES",
    "TOOL",
    "ReadTool",
    "image_type",
    "read_image",
    "read_text",
]
