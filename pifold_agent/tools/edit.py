"""``edit``: replace one unique piece of a file, exactly or after a forgiving normalisation.

Matching works on the file without its byte-order mark and with line endings made ``\\n``.
The exact text is tried first. Failing that, both sides are normalised (NFKC, trailing
spaces of each line dropped, curly quotes, Unicode dashes and unusual spaces made ASCII) and
the match is made there; the replacement is then applied to the normalised file, as Pi does.
The text must occur once: none or several is an error, and so is a replacement that changes
nothing. The file keeps its line endings and mark, and the result's details carry a
unified diff and the first changed line for the UI.

The file is read only if it is a regular file (never opening a FIFO or a device, see
:mod:`~pifold_agent.tools.blocking`) of at most :data:`EDIT_MAX_BYTES`, and written as
:mod:`~pifold_agent.tools.file_writing` writes: through symbolic links, in place for a file
with several hard links, atomically otherwise.
"""

from __future__ import annotations

import difflib
import os
import re
import stat
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from pifold_agent.tools.arguments import ToolInputError, failure, required_string, resolve_path
from pifold_agent.tools.blocking import NotRegularFile, existing_kind, in_thread, open_regular
from pifold_agent.tools.built_in import BuiltIn
from pifold_agent.tools.file_writing import write_file
from pifold_agent.tools.protocol import (
    Footprint,
    ToolContext,
    ToolOutcome,
    ToolTraits,
    Touches,
)
from pifold_agent.tools.truncation import format_size
from pifold_agent.tools.write import written_path
from pifold_core.canonical import JsonValue

BYTE_ORDER_MARK = "\ufeff"

EDIT_MAX_BYTES = 16 * 1024 * 1024
"""The largest file edit reads (the whole file is held, matched and diffed in memory)."""

_SINGLE_QUOTES = re.compile("[\u2018\u2019\u201a\u201b]")
_DOUBLE_QUOTES = re.compile("[\u201c\u201d\u201e\u201f]")
_DASHES = re.compile("[\u2010\u2011\u2012\u2013\u2014\u2015\u2212]")
_SPACES = re.compile("[\u00a0\u2002-\u200a\u202f\u205f\u3000]")


def normalise_for_matching(text: str) -> str:
    """The forgiving form both the file and the old text are compared in."""
    text = unicodedata.normalize("NFKC", text)
    text = "\n".join(line.rstrip() for line in text.split("\n"))
    text = _SINGLE_QUOTES.sub("'", text)
    text = _DOUBLE_QUOTES.sub('"', text)
    text = _DASHES.sub("-", text)
    return _SPACES.sub(" ", text)


def line_ending_of(text: str) -> str:
    """``\\r\\n`` when the first line ends that way, else ``\\n``."""
    first_newline = text.find("\n")
    return "\r\n" if first_newline > 0 and text[first_newline - 1] == "\r" else "\n"


@dataclass(frozen=True, slots=True)
class Match:
    """Where the old text was found."""

    base: str
    """The text the replacement applies to: the file, or its normalised form."""
    index: int
    """Where the match starts in :attr:`base`."""
    length: int
    """How long it is in :attr:`base`."""
    fuzzy: bool
    """Whether only the normalised forms matched."""
    occurrences: int
    """How often the old text occurs."""


def find_text(content: str, old_text: str) -> Match | None:
    """The unique-or-not match of ``old_text`` in ``content``, exact first."""
    index = content.find(old_text)
    if index >= 0:
        return Match(content, index, len(old_text), False, content.count(old_text))
    normal_content = normalise_for_matching(content)
    normal_old = normalise_for_matching(old_text)
    index = normal_content.find(normal_old) if normal_old else -1
    if index < 0:
        return None
    occurrences = normal_content.count(normal_old)
    return Match(normal_content, index, len(normal_old), True, occurrences)


def unified_diff(before: str, after: str, shown: str) -> tuple[str, int | None]:
    """A unified diff and the first changed line (1-based, in the new file)."""
    diff = "".join(
        difflib.unified_diff(
            before.splitlines(keepends=True),
            after.splitlines(keepends=True),
            fromfile=f"a/{shown}",
            tofile=f"b/{shown}",
        )
    )
    first: int | None = None
    for opcode, _, _, start, _ in difflib.SequenceMatcher(
        None, before.splitlines(), after.splitlines(), autojunk=False
    ).get_opcodes():
        if opcode != "equal":
            first = start + 1
            break
    return diff, first


def apply_edit(path: Path, shown: str, old_text: str, new_text: str) -> ToolOutcome:
    """The edit tool's work on one file."""
    mode = existing_kind(path)
    if mode is None:
        return failure(f"File not found: {shown}")
    if stat.S_ISDIR(mode):
        return failure(f"{shown} is a directory; edit changes files")
    with open_regular(path, shown, "edit changes") as handle:
        size = os.fstat(handle.fileno()).st_size
        data = handle.read(EDIT_MAX_BYTES + 1)
    if max(size, len(data)) > EDIT_MAX_BYTES:
        return failure(
            f"{shown} is {format_size(max(size, len(data)))}; edit works on files of at most "
            f"{format_size(EDIT_MAX_BYTES)}. Use bash (sed, or a script) for this one."
        )
    raw = data.decode("utf-8", "surrogateescape")
    has_mark = raw.startswith(BYTE_ORDER_MARK)
    content = raw[1:] if has_mark else raw
    ending = line_ending_of(content)
    content = content.replace("\r\n", "\n")
    old = old_text.replace("\r\n", "\n")
    new = new_text.replace("\r\n", "\n")
    if not old:
        return failure("edit: oldText must not be empty")
    match = find_text(content, old)
    if match is None:
        return failure(
            f"Could not find the exact text in {shown}. The old text must match exactly, "
            "including all whitespace and newlines."
        )
    if match.occurrences > 1:
        return failure(
            f"Found {match.occurrences} occurrences of the text in {shown}. The text must be "
            "unique: add surrounding lines to the old text so it matches only once."
        )
    updated = match.base[: match.index] + new + match.base[match.index + match.length :]
    if updated == match.base:
        return failure(
            f"No changes made to {shown}: the replacement produced identical content. "
            "Check the old text for special characters, or whether the change is already there."
        )
    diff, first_changed = unified_diff(content, updated, shown)
    final = updated.replace("\n", ending) if ending == "\r\n" else updated
    if has_mark:
        final = BYTE_ORDER_MARK + final
    write_file(path, shown, final.encode("utf-8", "surrogateescape"))
    details: dict[str, JsonValue] = {
        "diff": diff,
        "firstChangedLine": first_changed,
        "fuzzyMatch": match.fuzzy,
    }
    return ToolOutcome(f"Successfully replaced text in {shown}.", details=details)


PARAMETERS: dict[str, JsonValue] = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "File to edit, relative or absolute."},
        "oldText": {
            "type": "string",
            "description": "The exact text to replace; it must occur once in the file.",
        },
        "newText": {"type": "string", "description": "The text to put in its place."},
    },
    "required": ["path", "oldText", "newText"],
}
"""The JSON schema of the arguments."""


class EditTool:
    """Pi's ``edit``."""

    name = "edit"
    traits = ToolTraits(
        Touches.MODIFIES_FILE,
        asks_approval=True,
        headline=("path",),
        position=2,
        in_default_set=True,
    )
    description = (
        "Edit a file by replacing one exact piece of text (oldText, which must occur exactly "
        "once, whitespace included) with newText. Read the file first."
    )

    @property
    def parameters(self) -> dict[str, JsonValue]:
        return PARAMETERS

    def footprint(self, arguments: dict[str, JsonValue], cwd: Path) -> Footprint:
        """The file edited."""
        return written_path(arguments, cwd)

    async def run(self, arguments: dict[str, JsonValue], context: ToolContext) -> ToolOutcome:
        try:
            shown = required_string(arguments, "path")
            old_text = required_string(arguments, "oldText")
            new_text = required_string(arguments, "newText")
            path = resolve_path(shown, context.cwd)
        except ToolInputError as error:
            return failure(f"edit: {error}")
        try:
            return await in_thread(apply_edit, path, shown, old_text, new_text)
        except NotRegularFile as error:
            return failure(str(error))
        except OSError as error:
            return failure(f"Cannot edit {shown}: {error.strerror or error}")


TOOL = BuiltIn(EditTool)
"""How :mod:`pifold_agent.tools.registry` finds and builds ``edit``."""


__all__ = [
    "EDIT_MAX_BYTES",
    "TOOL",
    "EditTool",
    "Match",
    "apply_edit",
    "find_text",
    "line_ending_of",
    "normalise_for_matching",
    "unified_diff",
]
