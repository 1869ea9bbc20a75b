"""The agent's ``memory`` tool: Anthropic's memory tool command set over the memory store.

Commands, arguments and result texts follow Anthropic's ``memory_20250818`` tool (``view``
with an optional ``view_range``, ``create``, ``str_replace``, ``insert``, ``delete``,
``rename``), so a model trained on it uses it as it is. On Anthropic the tool is declared as
that native type (:attr:`MemoryTool.anthropic_type`); elsewhere as a function tool with the
same arguments (:data:`PARAMETERS`). ``/memories`` is the project's notes and
``/memories/user`` the user's (:mod:`pifold_agent.memory.store`, which refuses every path that
could leave them). Bad arguments get an error result naming what was wrong, and change
nothing.

Writing a note is not a repository edit: it changes only the note folders, so it is not
among the tools the approval asks about (:data:`pifold_agent.loop.approval.GUARDED_TOOLS`).
Each result's ``details["memory"]`` says which note the call read or wrote and its version,
which the resurfacing (:mod:`pifold_agent.memory.resurfacing`) and the event stream read.
"""

from __future__ import annotations

from pathlib import Path

from pifold_agent.memory.store import MemoryStore, MemoryStoreError
from pifold_agent.memory.texts import (
    folder_bytes,
    human_size,
    listing,
    listing_rows,
    numbered,
    replaced_snippet,
)
from pifold_agent.tools.arguments import ToolInputError, failure, required_string
from pifold_agent.tools.protocol import Footprint, ToolContext, ToolOutcome
from pifold_core.canonical import JsonValue

NAME = "memory"
"""The tool's name (Anthropic's)."""

ANTHROPIC_TYPE = "memory_20250818"
"""The native tool type Anthropic declares it as."""

COMMANDS: tuple[str, ...] = ("view", "create", "str_replace", "insert", "delete", "rename")
"""Every command, in Anthropic's order."""

DESCRIPTION = (
    "Notes that last beyond this session, as files under /memories (this project's notes) "
    "and /memories/user (the user's, shared by every project). Commands: view (a folder's "
    "listing or a note with line numbers), create, str_replace, insert, delete, rename. "
    "A note whose first line is 'paths: a.py, src/b/' comes back by itself when a later "
    "tool call touches those paths. Keep notes short and factual: what you would want to "
    "know the next time you work here."
)
"""What the model reads about the tool (a function tool only: Anthropic's type has its own)."""

PARAMETERS: dict[str, JsonValue] = {
    "type": "object",
    "properties": {
        "command": {"type": "string", "enum": list(COMMANDS)},
        "path": {"type": "string", "description": "A path under /memories."},
        "view_range": {
            "type": "array",
            "items": {"type": "integer"},
            "minItems": 2,
            "maxItems": 2,
            "description": "view: first and last line to show (1-based; -1 for the end).",
        },
        "file_text": {"type": "string", "description": "create: the note's whole text."},
        "old_str": {"type": "string", "description": "str_replace: text to find, once."},
        "new_str": {"type": "string", "description": "str_replace: its replacement."},
        "insert_line": {"type": "integer", "description": "insert: after this line (0: top)."},
        "insert_text": {"type": "string", "description": "insert: the text to insert."},
        "old_path": {"type": "string", "description": "rename: the note or folder to move."},
        "new_path": {"type": "string", "description": "rename: where it goes."},
    },
    "required": ["command"],
}
"""The function tool's JSON schema: Anthropic's arguments."""

WRITING: frozenset[str] = frozenset({"create", "str_replace", "insert", "delete", "rename"})
"""The commands that change a note."""


class MemoryTool:
    """``memory`` over one store."""

    name = NAME
    description = DESCRIPTION
    anthropic_type = ANTHROPIC_TYPE
    """Declared as this native type to Anthropic (see ``tool_specs`` in
    :mod:`pifold_agent.loop.system_prompt`)."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store
        """Where the notes are."""

    @property
    def parameters(self) -> dict[str, JsonValue]:
        return PARAMETERS

    def footprint(self, arguments: dict[str, JsonValue], cwd: Path) -> Footprint:
        """The note files a call touches, so two calls on one note run in order."""
        names = [arguments.get(key) for key in ("path", "old_path", "new_path")]
        real: list[Path] = []
        for name in names:
            try:
                real.append(self.store.locate(name).real)
            except MemoryStoreError:
                continue
        if arguments.get("command") in WRITING:
            return Footprint(writes=tuple(real))
        return Footprint(trees=tuple(real))

    async def run(self, arguments: dict[str, JsonValue], context: ToolContext) -> ToolOutcome:
        command = arguments.get("command")
        if command not in COMMANDS:
            return failure(
                f"memory: 'command' must be one of {', '.join(COMMANDS)}, got {command!r}"
            )
        try:
            return self._run(str(command), arguments)
        except (MemoryStoreError, ToolInputError) as error:
            return failure(str(error))  # is_error marks it, as Anthropic's own client does
        except OSError as error:
            return failure(f"The memory folder could not be changed: {error.strerror or error}")

    def _run(self, command: str, arguments: dict[str, JsonValue]) -> ToolOutcome:
        if command == "view":
            return self._view(arguments)
        if command == "create":
            path = required_string(arguments, "path")
            text = required_string(arguments, "file_text")
            if self.store.exists(path):
                return failure(f"File {path} already exists")
            note = self.store.write(path, text)
            return written(
                f"File created successfully at: {note.path}", note.path, note.version, True
            )
        if command == "str_replace":
            return self._replace(arguments)
        if command == "insert":
            return self._insert(arguments)
        if command == "delete":
            path = required_string(arguments, "path")
            located = self.store.locate(path)
            self.store.delete(path)
            return written(f"Successfully deleted {located.virtual}", located.virtual, None)
        old = required_string(arguments, "old_path")
        new = required_string(arguments, "new_path")
        self.store.rename(old, new)
        return written(f"Successfully renamed {old} to {new}", new, None)

    def _view(self, arguments: dict[str, JsonValue]) -> ToolOutcome:
        path = required_string(arguments, "path")
        located = self.store.locate(path)
        if located.real.is_dir() or located.real == located.root:
            return ToolOutcome(self._listing(located.virtual, located.real))
        note = self.store.read(path)
        lines = note.text.splitlines()
        first, last = view_range(arguments.get("view_range"), len(lines))
        whole = first == 1 and last >= len(lines)
        details: dict[str, JsonValue] = {"command": "view", "path": note.path}
        if whole:
            details["version"] = note.version  # the whole text is in the window now
        return ToolOutcome(
            f"Here's the content of {note.path} with line numbers:\n"
            + numbered(lines[first - 1 : last], first),
            details={"memory": details},
        )

    def _listing(self, virtual: str, real: Path) -> str:
        rows = listing_rows(real, virtual)
        total = folder_bytes(real)
        if virtual == "/memories":  # the user's notes sit under it as the folder user/
            user = self.store.user
            rows.append(f"{human_size(folder_bytes(user))}\t/memories/user/")
            rows += listing_rows(user, "/memories/user", depth=2)
            total += folder_bytes(user)
        return listing(virtual, rows, total)

    def _replace(self, arguments: dict[str, JsonValue]) -> ToolOutcome:
        path = required_string(arguments, "path")
        old = required_string(arguments, "old_str")
        new = required_string(arguments, "new_str")
        note = self.store.read(path)
        count = note.text.count(old) if old else 0
        if count == 0:
            return failure(
                f"No replacement was performed, old_str `{old}` did not appear verbatim in "
                f"{note.path}."
            )
        if count > 1:
            lines = [
                str(number)
                for number, line in enumerate(note.text.splitlines(), 1)
                if old.splitlines() and old.splitlines()[0] in line
            ]
            return failure(
                f"No replacement was performed. Multiple occurrences of old_str `{old}` in lines: "
                f"{', '.join(lines)}. Please ensure it is unique"
            )
        position = note.text.index(old)
        edited = self.store.write(path, note.text.replace(old, new, 1))
        return written(replaced_snippet(edited.text, position), edited.path, edited.version)

    def _insert(self, arguments: dict[str, JsonValue]) -> ToolOutcome:
        path = required_string(arguments, "path")
        text = required_string(arguments, "insert_text")
        line = arguments.get("insert_line")
        note = self.store.read(path)
        lines = note.text.splitlines(keepends=True)
        if isinstance(line, float) and line.is_integer():
            line = int(line)
        if not isinstance(line, int) or isinstance(line, bool) or not 0 <= line <= len(lines):
            return failure(
                f"Invalid `insert_line` parameter: {line}. It should be within the range "
                f"[0, {len(lines)}]."
            )
        if line and not lines[line - 1].endswith("\n"):
            lines[line - 1] += "\n"
        added = text if text.endswith("\n") or line == len(lines) else text + "\n"
        edited = self.store.write(path, "".join([*lines[:line], added, *lines[line:]]))
        return written(f"The file {edited.path} has been edited.", edited.path, edited.version)


def written(text: str, path: str, version: str | None, shown: bool = False) -> ToolOutcome:
    """A successful write's result; ``shown``: the call carried the note's whole text."""
    details: dict[str, JsonValue] = {"written": True, "path": path}
    if version is not None and shown:
        details["version"] = version
    return ToolOutcome(text, details={"memory": details})


def view_range(value: JsonValue, count: int) -> tuple[int, int]:
    """A ``view_range`` as first and last line (1-based, inclusive), checked.

    Raises:
        ToolInputError: not two integers, or outside the note.
    """
    if value is None:
        return 1, max(count, 1)
    if (
        not isinstance(value, list)
        or len(value) != 2
        or not all(isinstance(item, int) and not isinstance(item, bool) for item in value)
    ):
        raise ToolInputError(f"view_range must be two integers [first, last], got {value!r}")
    first, last = int(value[0]), int(value[1])
    last = count if last == -1 else last
    if not 1 <= first <= max(count, 1) or last < first:
        raise ToolInputError(f"view_range {value!r} is outside the note's lines [1, {count}]")
    return first, last


__all__ = ["ANTHROPIC_TYPE", "COMMANDS", "NAME", "PARAMETERS", "MemoryTool", "view_range"]
