"""The prompt's history: what the user sent in one project, newest last, kept across runs.

The file sits in the project's session folder (``~/.pifold/sessions/<project>/``, see
:mod:`pifold_agent.sessions.paths`), beside the sessions, because it holds what the user
typed just as they do: it is written 0600 in a 0700 folder. Its name does not end in
``.jsonl`` so the session catalogue never takes it for a session. Each write replaces the
whole file atomically (a temporary file, fsync, rename), so a crash leaves the old history
or the new one, never a torn one.

A file that cannot be read as a history is reported in :attr:`PromptHistory.problem` and
never overwritten: the history then lives in memory only for that run.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

HISTORY_FILE_NAME = "prompt-history.json"
"""The file's name inside the project's session folder."""

HISTORY_LIMIT = 500
"""Entries kept; the oldest go first."""

HISTORY_VERSION = 1
"""The file format's version (a file of another version is reported, not read)."""


def history_file_for(cwd: Path, sessions_dir: Path | None = None) -> Path:
    """Where the history of the project in ``cwd`` is kept."""
    # The sessions package loads the catalogue and the importers: not for the first frame.
    from pifold_agent.sessions.paths import project_directory

    return project_directory(cwd, sessions_dir) / HISTORY_FILE_NAME


class PromptHistory:
    """The sent prompts of one project, de-duplicated, and a cursor to walk them."""

    def __init__(self, path: Path | None, limit: int = HISTORY_LIMIT) -> None:
        self.path = path
        """The file (``None``: memory only)."""
        self.limit = limit
        """How many entries are kept."""
        self.entries: list[str] = []
        """Oldest first; each text once."""
        self.problem: str | None = None
        """Why the file could not be read (it is then left as it is)."""
        self._position: int | None = None
        self._draft = ""
        if path is not None:
            self._load(path)

    def _load(self, path: Path) -> None:
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return
        except OSError as error:
            self.problem = f"prompt history {path} cannot be read: {error.strerror or error}"
            return
        try:
            record = json.loads(raw)
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            self.problem = f"prompt history {path} is not JSON ({error}); it is left unchanged"
            return
        entries = record.get("entries") if isinstance(record, dict) else None
        if (
            not isinstance(record, dict)
            or record.get("version") != HISTORY_VERSION
            or not isinstance(entries, list)
            or not all(isinstance(entry, str) for entry in entries)
        ):
            self.problem = (
                f"prompt history {path} is not a version {HISTORY_VERSION} history "
                '({"version": 1, "entries": [text, ...]}); it is left unchanged'
            )
            return
        self.entries = list(entries)[-self.limit :]

    def add(self, text: str) -> None:
        """Remember ``text`` as the newest entry (an earlier copy is dropped) and save."""
        self.reset()
        if not text.strip():
            return
        if text in self.entries:
            self.entries.remove(text)
        self.entries.append(text)
        del self.entries[: -self.limit]
        self.save()

    def save(self) -> None:
        """Write the file atomically (nothing when memory only or the file was unreadable).

        Raises:
            OSError: the folder or the file cannot be written (the old file stays).
        """
        if self.path is None or self.problem is not None:
            return
        from pifold_agent.sessions.paths import FILE_MODE, make_private_directory

        make_private_directory(self.path.parent)
        body = json.dumps({"version": HISTORY_VERSION, "entries": self.entries}) + "\n"
        temporary = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
        try:
            # The mode is set explicitly: the umask may have narrowed or widened it, and a
            # leftover temporary file keeps its old mode through O_CREAT.
            os.fchmod(descriptor, FILE_MODE)
            with os.fdopen(descriptor, "wb", closefd=False) as stream:
                stream.write(body.encode("utf-8"))
                stream.flush()
            os.fsync(descriptor)
        except BaseException:
            os.close(descriptor)
            with contextlib.suppress(OSError):
                temporary.unlink()
            raise
        os.close(descriptor)
        os.replace(temporary, self.path)

    # -- walking ------------------------------------------------------------------------------

    @property
    def browsing(self) -> bool:
        """Whether the cursor is on an entry (rather than on the draft being typed)."""
        return self._position is not None

    def previous(self, draft: str) -> str | None:
        """The entry before the cursor (the newest when not browsing yet, keeping ``draft``
        to come back to), or ``None`` at the oldest."""
        if not self.entries:
            return None
        if self._position is None:
            self._draft = draft
            self._position = len(self.entries)
        if self._position == 0:
            return None
        self._position -= 1
        return self.entries[self._position]

    def next(self) -> str | None:
        """The entry after the cursor, the draft after the newest, ``None`` when not
        browsing."""
        if self._position is None:
            return None
        self._position += 1
        if self._position >= len(self.entries):
            self._position = None
            return self._draft
        return self.entries[self._position]

    def reset(self) -> None:
        """Stop browsing (the next :meth:`previous` starts from the newest again)."""
        self._position = None
        self._draft = ""


__all__ = ["HISTORY_FILE_NAME", "HISTORY_LIMIT", "PromptHistory", "history_file_for"]
