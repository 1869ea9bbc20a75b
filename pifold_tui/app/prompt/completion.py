"""What the prompt completes, and with what: ``/`` commands and ``@`` file paths.

Pure functions, no widgets: :func:`query_at` finds what the cursor is completing in the
text, :func:`command_candidates` lists the registry's commands for it, and
:class:`PathIndex` lists the working directory's paths (``.gitignore`` respected, through the
find tool's own walk) for :func:`path_candidates` to rank. The walk is bounded and runs once
per ``@`` completion, off the UI thread (the prompt calls it in a worker).

A path is inserted the way it is read back. In a message it is a mention, ``@src/app.py``,
quoted when it holds a space or a quote (``@"my notes.md"``) so the model sees one path and
the file tools, which drop the ``@`` and such quotes, open it. In a ``!command`` line the
shell reads it, so it goes in as one shell word (``'my notes.md'``) without the ``@``.
"""

from __future__ import annotations

import itertools
import re
import shlex
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pifold_tui.app.commands import CommandRegistry

QueryKind = Literal["command", "path"]

PATH_SCAN_LIMIT = 20_000
"""Paths walked at most per ``@`` completion (a huge tree is cut there, never waited on)."""

PATH_CANDIDATE_LIMIT = 50
"""Paths offered at most."""


@dataclass(frozen=True, slots=True)
class CompletionQuery:
    """What the text at the cursor asks to complete."""

    kind: QueryKind
    """``command`` after a leading ``/``, ``path`` after an ``@``."""
    fragment: str
    """What was typed after the ``/`` or ``@``, up to the cursor."""
    row: int
    """The line of the cursor."""
    start: int
    """The column of the ``/`` or ``@`` (the replacement starts there)."""
    end: int
    """The column where the typed word ends (the replacement ends there)."""
    shell: bool = False
    """Whether the message is a ``!command`` (a path then goes in as a shell word)."""


@dataclass(frozen=True, slots=True)
class Candidate:
    """One thing the popup offers."""

    label: str
    """What it shows first (``/fold``, ``src/app.py``)."""
    replacement: str
    """What replaces the query's span when accepted."""
    detail: str = ""
    """A dim second column: the command's description."""
    reopens: bool = False
    """Whether accepting leaves more to complete (a folder: its contents are listed next)."""


def _word_end(line: str, column: int) -> int:
    end = column
    while end < len(line) and not line[end].isspace():
        end += 1
    return end


def query_at(text: str, row: int, column: int) -> CompletionQuery | None:
    """The completion the cursor at ``(row, column)`` of ``text`` is in, if any.

    A command is the first word of the whole message when it starts with ``/`` (so a path
    such as ``/etc/hosts`` typed later in a line is never taken for one); a path is any word
    starting with ``@`` that the cursor is at the end of or inside.
    """
    lines = text.split("\n")
    if row >= len(lines):
        return None
    line = lines[row]
    column = min(column, len(line))
    before = line[:column]
    if row == 0 and before.startswith("/") and not any(c.isspace() for c in before):
        return CompletionQuery("command", before[1:], 0, 0, _word_end(line, column))
    word_start = column
    while word_start > 0 and not line[word_start - 1].isspace():
        word_start -= 1
    word = before[word_start:]
    if word.startswith("@") and "@" not in word[1:]:
        shell = text.startswith("!")
        return CompletionQuery("path", word[1:], row, word_start, _word_end(line, column), shell)
    return None


def command_candidates(registry: CommandRegistry[Any], fragment: str) -> list[Candidate]:
    """The registry's commands that start with ``fragment``, in registration order, except
    that a command named exactly ``fragment`` comes first (so ``/fold`` then Enter runs
    ``/fold``, not ``/fold-status``); each says when it cannot run during a run."""
    matches = sorted(registry.matching(fragment), key=lambda command: command.name != fragment)
    return [
        Candidate(
            command.slash,
            command.slash + " ",
            command.description
            if command.available_during_run
            else f"{command.description} (not during a run)",
        )
        for command in matches
    ]


class PathIndex:
    """The paths under one folder, walked once (bounded) and then filtered in memory."""

    def __init__(self, root: Path, scan_limit: int = PATH_SCAN_LIMIT) -> None:
        self.root = root
        """The working directory whose paths are offered."""
        self.scan_limit = scan_limit
        """Paths walked at most."""
        self._paths: list[str] | None = None
        # Each keystroke asks from its own worker thread: the first walks, the rest wait.
        self._walking = threading.Lock()
        self.truncated = False
        """Whether the walk stopped at :attr:`scan_limit` (some paths are not offered)."""

    def paths(self) -> list[str]:
        """Every path walked, folders ending in ``/`` (walks on the first call: call it
        off the UI thread)."""
        with self._walking:
            if self._paths is None:
                # Imported here, in the worker: the tools package loads every built-in
                # tool, which the app's first frame does not need.
                from pifold_agent.tools.gitignore import walk

                walked = itertools.islice(walk(self.root), self.scan_limit + 1)
                found = [relative + "/" if folder else relative for relative, folder in walked]
                self.truncated = len(found) > self.scan_limit
                self._paths = found[: self.scan_limit]
            return self._paths


def _rank(path: str, fragment: str) -> int | None:
    """0: the path starts with the fragment; 1: its last part does; 2: it contains it;
    ``None``: no match (case-insensitive)."""
    lowered, wanted = path.lower(), fragment.lower()
    if lowered.startswith(wanted):
        return 0
    name = lowered.rstrip("/").rsplit("/", 1)[-1]
    if name.startswith(wanted):
        return 1
    if wanted in lowered:
        return 2
    return None


NEEDS_QUOTES = re.compile(r"[\s\"'\\]")
"""Characters that would end or change a path word if it went in bare."""


def mention(path: str) -> str:
    """``@path`` as a message carries it: quoted when the path holds a space, a quote or a
    backslash, so it reads back as one path (double quotes unless the path has one)."""
    if not NEEDS_QUOTES.search(path):
        return "@" + path
    quote = "'" if '"' in path else '"'
    return f"@{quote}{path}{quote}"


def replacement_for(path: str, shell: bool) -> tuple[str, bool]:
    """What accepting ``path`` inserts, and whether completion goes on into it (a folder
    inserted bare as ``@folder/`` lists its entries next)."""
    folder = path.endswith("/")
    if shell:
        return shlex.quote(path) + ("" if folder else " "), False
    inserted = mention(path)
    if not folder:
        return inserted + " ", False
    return inserted, not inserted.endswith(("'", '"'))


def path_candidates(
    index: PathIndex, fragment: str, limit: int = PATH_CANDIDATE_LIMIT, shell: bool = False
) -> list[Candidate]:
    """The best ``limit`` paths for ``fragment``: prefix matches first, then name matches,
    then the rest, shallower paths before deeper ones. Right after a folder's ``/`` only
    that folder's own entries are offered. Each replaces the query with the path as it is
    read back (:func:`replacement_for`; ``shell`` in a ``!command`` line)."""
    ranked: list[tuple[int, int, str]] = []
    listing_folder = fragment.endswith("/")
    for path in index.paths():
        if listing_folder:
            rest = path[len(fragment) :]
            if not path.startswith(fragment) or not rest or "/" in rest.rstrip("/"):
                continue
        rank = _rank(path, fragment)
        if rank is not None:
            ranked.append((rank, path.count("/", 0, len(path) - 1), path))
    ranked.sort()
    candidates = []
    for _, _, path in ranked[:limit]:
        replacement, reopens = replacement_for(path, shell)
        candidates.append(Candidate(path, replacement, "", reopens))
    return candidates


__all__ = [
    "PATH_CANDIDATE_LIMIT",
    "PATH_SCAN_LIMIT",
    "Candidate",
    "CompletionQuery",
    "PathIndex",
    "QueryKind",
    "command_candidates",
    "mention",
    "path_candidates",
    "query_at",
    "replacement_for",
]
