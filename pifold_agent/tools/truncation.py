"""Output limits shared by the tools (pi-host §2.1): 2,000 lines and 50 KB, whichever first.

Lines are what ``text.split("\\n")`` gives, as in Pi, so a trailing newline counts as an
empty last line. *Head* truncation (read, grep, find, ls) keeps whole leading lines; when
the first line alone is over the byte limit it keeps nothing and says so. *Tail* truncation
(bash) keeps whole trailing lines; when the last line alone is over the limit it keeps that
line's last bytes, cut at a character boundary. Every result carries the totals, what was
kept and which limit was hit, for the notice the tool appends and for the UI.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pifold_core.canonical import JsonValue

MAX_LINES = 2_000
"""The line limit."""

MAX_BYTES = 50 * 1024
"""The byte limit (51,200 bytes of UTF-8)."""

NOTICE_ROOM_BYTES = 512
"""Bytes kept free under a context's result limit for the notice a tool appends."""

SMALLEST_OUTPUT_BYTES = 256
"""The output limit never goes below this, however small the context's result limit."""

GREP_MAX_LINE_CHARACTERS = 500
"""A single grep line is cut to this many characters."""

TruncatedBy = Literal["lines", "bytes"]


@dataclass(frozen=True, slots=True)
class Truncation:
    """What a truncation kept of a text."""

    content: str
    """The text kept."""
    truncated: bool
    """Whether anything was dropped."""
    truncated_by: TruncatedBy | None
    """The limit that was hit, or None when nothing was dropped."""
    total_lines: int
    """Lines in the whole text."""
    total_bytes: int
    """UTF-8 bytes of the whole text."""
    output_lines: int
    """Lines kept."""
    output_bytes: int
    """UTF-8 bytes kept."""
    first_line_exceeds_limit: bool = False
    """Head truncation: the first line alone is over the byte limit, so nothing was kept."""
    last_line_partial: bool = False
    """Tail truncation: only the end of the last line was kept."""

    def to_details(self) -> dict[str, JsonValue]:
        """The figures for a tool result's ``details`` (camelCase, as Pi's UI reads them)."""
        return {
            "truncated": self.truncated,
            "truncatedBy": self.truncated_by,
            "totalLines": self.total_lines,
            "totalBytes": self.total_bytes,
            "outputLines": self.output_lines,
            "outputBytes": self.output_bytes,
            "firstLineExceedsLimit": self.first_line_exceeds_limit,
            "lastLinePartial": self.last_line_partial,
        }


def output_limit(result_limit_bytes: int | None) -> int:
    """The byte limit a tool cuts its output to: :data:`MAX_BYTES`, or less when the context
    would cut a larger result itself (``ToolContext.result_limit_bytes``), leaving room for
    the tool's notice so that the whole result, notice included, reaches the model."""
    if result_limit_bytes is None:
        return MAX_BYTES
    return max(SMALLEST_OUTPUT_BYTES, min(MAX_BYTES, result_limit_bytes - NOTICE_ROOM_BYTES))


def byte_length(text: str) -> int:
    """UTF-8 bytes of ``text`` (a lone surrogate counts as its replacement)."""
    return len(text.encode("utf-8", "replace"))


def format_size(size: int) -> str:
    """``512B``, ``50.0KB``, ``1.5MB``, ``2.0GB``."""
    if size < 1024:
        return f"{size}B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f}KB"
    if size < 1024**3:
        return f"{size / (1024 * 1024):.1f}MB"
    return f"{size / 1024**3:.1f}GB"


def truncate_head(text: str, max_lines: int = MAX_LINES, max_bytes: int = MAX_BYTES) -> Truncation:
    """Keep whole leading lines within both limits."""
    total_bytes = byte_length(text)
    lines = text.split("\n")
    if len(lines) <= max_lines and total_bytes <= max_bytes:
        return Truncation(text, False, None, len(lines), total_bytes, len(lines), total_bytes)
    if byte_length(lines[0]) > max_bytes:
        return Truncation("", True, "bytes", len(lines), total_bytes, 0, 0, True)
    kept: list[str] = []
    used = 0
    truncated_by: TruncatedBy = "lines"
    for line in lines[:max_lines]:
        cost = byte_length(line) + (1 if kept else 0)
        if used + cost > max_bytes:
            truncated_by = "bytes"
            break
        kept.append(line)
        used += cost
    content = "\n".join(kept)
    return Truncation(
        content, True, truncated_by, len(lines), total_bytes, len(kept), byte_length(content)
    )


def _tail_bytes(line: str, max_bytes: int) -> str:
    """The end of ``line`` in at most ``max_bytes`` UTF-8 bytes, never half a character."""
    data = line.encode("utf-8", "replace")[-max_bytes:]
    start = 0
    while start < len(data) and (data[start] & 0xC0) == 0x80:
        start += 1  # skip continuation bytes of a character cut in two
    return data[start:].decode("utf-8")


def truncate_tail(text: str, max_lines: int = MAX_LINES, max_bytes: int = MAX_BYTES) -> Truncation:
    """Keep whole trailing lines within both limits (the end of the last line if it alone
    is too long)."""
    total_bytes = byte_length(text)
    lines = text.split("\n")
    if len(lines) <= max_lines and total_bytes <= max_bytes:
        return Truncation(text, False, None, len(lines), total_bytes, len(lines), total_bytes)
    kept: list[str] = []
    used = 0
    truncated_by: TruncatedBy = "lines"
    partial = False
    for line in reversed(lines):
        if len(kept) >= max_lines:
            break
        cost = byte_length(line) + (1 if kept else 0)
        if used + cost > max_bytes:
            truncated_by = "bytes"
            if not kept:
                kept.append(_tail_bytes(line, max_bytes))
                partial = True
            break
        kept.append(line)
        used += cost
    kept.reverse()
    content = "\n".join(kept)
    return Truncation(
        content,
        True,
        truncated_by,
        len(lines),
        total_bytes,
        len(kept),
        byte_length(content),
        last_line_partial=partial,
    )


def truncate_line(line: str, max_characters: int = GREP_MAX_LINE_CHARACTERS) -> tuple[str, bool]:
    """A grep line cut to ``max_characters`` with a ``... [truncated]`` suffix; whether it was."""
    if len(line) <= max_characters:
        return line, False
    return f"{line[:max_characters]}... [truncated]", True


__all__ = [
    "GREP_MAX_LINE_CHARACTERS",
    "MAX_BYTES",
    "MAX_LINES",
    "NOTICE_ROOM_BYTES",
    "SMALLEST_OUTPUT_BYTES",
    "Truncation",
    "byte_length",
    "format_size",
    "output_limit",
    "truncate_head",
    "truncate_line",
    "truncate_tail",
]
