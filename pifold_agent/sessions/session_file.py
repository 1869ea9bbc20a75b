"""One session file: append messages and compactions, read the current branch back.

The file is append-only. Line 1 is the header; every later line is an entry whose
``parentId`` is the leaf at the time it was written, and on load the leaf is the last entry
in the file (Pi's rule). The file is created with the first append, so a session that never
recorded a message leaves nothing behind.

Durability: each append is one ``write`` of a whole line to a file opened for appending, so
it is in the operating system before :meth:`SessionFile.record` returns, which is before the
loop tells the engine. :meth:`SessionFile.sync` fsyncs (the loop calls it at every turn
end), and a compaction entry is fsynced as it is written. A crash mid-write can leave a torn
last line: reading skips it and reports it in :attr:`SessionFile.problems`, and the next
append starts on a fresh line so the damage stays confined to that one line.
"""

from __future__ import annotations

import json
import os
import secrets
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pifold_agent.compaction.prompts import summary_entry
from pifold_agent.loop.messages import in_context, now_ms
from pifold_agent.sessions.errors import SessionError
from pifold_agent.sessions.paths import (
    FILE_MODE,
    make_private_directory,
    project_directory,
    session_file_name,
    state_directory,
)
from pifold_agent.sessions.pi_format import (
    CompactionRecord,
    SessionFormatError,
    compaction_line,
    compaction_record,
    entry_of,
    header_line,
    message_line,
)
from pifold_agent.sessions.reading import (
    LineProblem,
    parse_session,
    read_session_bytes,
    size_of,
)
from pifold_agent.sessions.writer_lock import lock_session
from pifold_core.canonical import JsonValue
from pifold_core.entries import Entry
from pifold_core.lock import SessionLock


def _encode(line: Mapping[str, JsonValue]) -> bytes:
    text = json.dumps(line, ensure_ascii=False, separators=(",", ":"))
    try:
        return (text + "\n").encode("utf-8")
    except UnicodeEncodeError:
        # A lone surrogate has no UTF-8 form; escaped JSON keeps it readable and exact.
        return (json.dumps(line, separators=(",", ":")) + "\n").encode("ascii")


class SessionFile:
    """A session in Pi's tree format. Build one with :meth:`create` or :meth:`open`.

    One writer per file: the first append (or :meth:`claim`, which hosts call as they open
    a session to run in) takes the session's lock, and :meth:`close` gives it back.
    """

    def __init__(self, path: Path, header: Mapping[str, Any]) -> None:
        self.path = path
        """The session file (it may not exist yet: it is created with the first append)."""
        self.header: dict[str, Any] = dict(header)
        """Line 1: ``type``, ``version``, ``id``, ``timestamp``, ``cwd``."""
        self.problems: list[LineProblem] = []
        """Lines skipped on reading, in file order."""
        self._lines: dict[str, dict[str, Any]] = {}
        self._line_numbers: dict[str, int] = {}
        self._parsed: dict[str, Entry] = {}
        self._next_line = 2 if not path.exists() else 1
        self._leaf: str | None = None
        self._descriptor: int | None = None
        self._needs_newline = False
        self._known_size = 0
        """The file's size as this object last read or wrote it: another writer's work
        shows as a different size when the lock is taken."""
        self._lock: SessionLock | None = None

    # -- opening -------------------------------------------------------------------------

    @classmethod
    def create(
        cls, cwd: Path, sessions_dir: Path | None = None, timestamp_ms: int | None = None
    ) -> SessionFile:
        """A new session for ``cwd`` under the project folder (the file appears on the
        first append)."""
        stamp = now_ms() if timestamp_ms is None else timestamp_ms
        session_id = str(uuid.uuid4())
        folder = project_directory(cwd, sessions_dir)
        path = folder / session_file_name(session_id, stamp)
        return cls(path, header_line(session_id, str(cwd.resolve()), stamp))

    @classmethod
    def open(cls, path: Path) -> SessionFile:
        """Read an existing session file (nothing is locked: reading needs no lock).

        Raises:
            SessionError: the file cannot be read, is not a regular file, or holds neither a
                header nor an entry.
        """
        data = read_session_bytes(path)
        session = cls(path, {})
        session._load(data)
        return session

    def _load(self, data: bytes) -> None:
        """Take the file's bytes as this session's whole state."""
        parsed = parse_session(self.path, data)
        self.header = parsed.header
        self.problems = list(parsed.problems)
        self._lines, self._line_numbers, self._parsed, self._leaf = {}, {}, {}, None
        for number, value in parsed.entries:
            if value["id"] in self._lines:
                self.problems.append(LineProblem(number, f"duplicate id {value['id']!r}"))
                continue
            self._remember(value, number)
        self._needs_newline = bool(data) and not data.endswith(b"\n")
        self._next_line = data.count(b"\n") + (2 if self._needs_newline else 1)
        self._known_size = len(data)

    def claim(self) -> None:
        """Become the session's one writer: take its lock, then read the file again when
        another writer changed it since it was read, so this one extends the branch as it
        stands now and nobody's work is forked off it. Idempotent.

        Raises:
            SessionBusy: another open is writing it (the message names the holder).
            SessionError: the file became unreadable, or the lock cannot be made.
        """
        self._take_lock(reread=True)

    @property
    def claimed(self) -> bool:
        """Whether this object holds the session's lock."""
        return self._lock is not None

    def _take_lock(self, reread: bool) -> None:
        if self._lock is not None:
            return
        try:
            lock = lock_session(self.path, self.id)
        except OSError as error:
            raise SessionError(
                f"cannot lock session {self.id} ({self.path}): {error.strerror or error}"
            ) from None
        try:
            size = size_of(self.path)
            if size is not None and size != self._known_size:
                if not reread:
                    raise SessionError(
                        f"session file {self.path} changed on disk since it was read (another "
                        "writer): nothing was written; open the session again"
                    )
                self._load(read_session_bytes(self.path))
        except BaseException:
            lock.release()
            raise
        self._lock = lock

    # -- identity ------------------------------------------------------------------------

    @property
    def id(self) -> str:
        """The session's uuid (the header's ``id``)."""
        return str(self.header.get("id", ""))

    @property
    def cwd(self) -> str:
        """The working directory the session was created in."""
        return str(self.header.get("cwd", ""))

    @property
    def state_directory(self) -> Path:
        """The engine's state folder beside the file, created 0700 on first use."""
        return make_private_directory(state_directory(self.path))

    @property
    def leaf_id(self) -> str | None:
        """The current position: the last entry appended."""
        return self._leaf

    def line_of(self, entry_id: str) -> int | None:
        """The 1-based line of the file that holds entry ``entry_id`` (``None``: none)."""
        return self._line_numbers.get(entry_id)

    @property
    def taken_ids(self) -> frozenset[str]:
        """Every entry id in the file, on any branch (new ids must avoid them)."""
        return frozenset(self._lines)

    # -- writing -------------------------------------------------------------------------

    def record(self, entry: Entry) -> None:
        """Append a message entry, written to the file before this returns (the loop's
        :class:`~pifold_agent.loop.recorder.SessionRecorder`).

        Raises:
            SessionError: the id is already in the file, or the write failed.
        """
        if entry.id in self._lines:
            raise SessionError(f"entry id {entry.id!r} is already in session {self.id}")
        self._write(message_line(entry, self._leaf), durable=False)

    append_message = record

    def append_compaction(
        self,
        summary: str,
        first_kept_entry_id: str,
        tokens_before: int,
        details: Mapping[str, JsonValue] | None = None,
    ) -> str:
        """Append Pi's ``compaction`` entry (fsynced); returns its id.

        Raises:
            SessionError: ``first_kept_entry_id`` is not a message on the current branch.
        """
        if first_kept_entry_id not in {entry.id for entry in self.messages()}:
            raise SessionError(
                f"first kept entry {first_kept_entry_id!r} is not a message on the current "
                f"branch of session {self.id}"
            )
        entry_id = self._new_id()
        line = compaction_line(
            entry_id, self._leaf, now_ms(), summary, first_kept_entry_id, tokens_before, details
        )
        self._write(line, durable=True)
        return entry_id

    def sync(self) -> None:
        """Make everything appended so far durable (fsync)."""
        if self._descriptor is not None:
            os.fsync(self._descriptor)

    def close(self) -> None:
        """Fsync and close the file and give the writer's lock up (idempotent; appending
        again takes the lock again, if the file did not change meanwhile)."""
        try:
            if self._descriptor is not None:
                descriptor, self._descriptor = self._descriptor, None
                try:
                    os.fsync(descriptor)
                finally:
                    os.close(descriptor)
        finally:
            if self._lock is not None:
                lock, self._lock = self._lock, None
                lock.release()

    def __enter__(self) -> SessionFile:
        return self

    def __exit__(self, *exception: object) -> None:
        self.close()

    def _new_id(self) -> str:
        while True:
            candidate = secrets.token_hex(4)
            if candidate not in self._lines:
                return candidate

    def _write(self, line: dict[str, JsonValue], durable: bool) -> None:
        data = _encode(line)
        self._take_lock(reread=False)
        try:
            if self._descriptor is None:
                self._descriptor = self._open_for_append()
            if self._needs_newline:
                data = b"\n" + data
            written = 0
            while written < len(data):
                written += os.write(self._descriptor, data[written:])
            if durable:
                os.fsync(self._descriptor)
        except OSError as error:
            raise SessionError(f"cannot write session file {self.path}: {error}") from None
        self._known_size += len(data)
        self._needs_newline = False
        self._remember(dict(line), self._next_line)
        self._next_line += 1

    def _open_for_append(self) -> int:
        make_private_directory(self.path.parent)
        created = not self.path.exists()
        descriptor = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, FILE_MODE)
        if created:
            os.fchmod(descriptor, FILE_MODE)
            header = _encode(self.header)
            os.write(descriptor, header)
            os.fsync(descriptor)
            self._known_size = len(header)
            # The new directory entry must survive a crash too.
            directory = os.open(self.path.parent, os.O_RDONLY)
            try:
                os.fsync(directory)
            finally:
                os.close(directory)
        return descriptor

    def _remember(self, line: dict[str, Any], line_number: int) -> None:
        self._lines[line["id"]] = line
        self._line_numbers[line["id"]] = line_number
        self._leaf = line["id"]

    # -- reading -------------------------------------------------------------------------

    def branch(self) -> list[dict[str, Any]]:
        """The entry lines from the root to the leaf, in order."""
        path: list[dict[str, Any]] = []
        seen: set[str] = set()
        current = self._leaf
        while current is not None and current not in seen:
            line = self._lines.get(current)
            if line is None:
                break  # a parent lost to a skipped line: the branch starts after it
            seen.add(current)
            path.append(line)
            parent = line.get("parentId")
            current = parent if isinstance(parent, str) else None
        path.reverse()
        return path

    def messages(self) -> list[Entry]:
        """Every message on the current branch as an entry, aborted ones included; a line
        that holds no readable message is skipped and added to :attr:`problems`."""
        entries: list[Entry] = []
        for line in self.branch():
            if line.get("type") != "message":
                continue
            cached = self._parsed.get(line["id"])
            if cached is not None:
                entries.append(cached)
                continue
            try:
                entry = entry_of(line["id"], line.get("message"))
            except SessionFormatError as error:
                problem = LineProblem(self._line_numbers[line["id"]], str(error))
                if problem not in self.problems:
                    self.problems.append(problem)
                continue
            # Lines never change once written, so each is parsed once per process.
            self._parsed[line["id"]] = entry
            entries.append(entry)
        return entries

    def recorded(self) -> Sequence[Entry]:
        """The messages on the current branch (the loop's ``SessionRecorder``)."""
        return self.messages()

    def latest_compaction(self) -> CompactionRecord | None:
        """The newest ``compaction`` entry on the current branch."""
        for line in reversed(self.branch()):
            if line.get("type") == "compaction":
                return compaction_record(line)
        return None

    def context(self) -> list[Entry]:
        """What the model sees when compaction is in use (Pi's session context): with no
        compaction on the branch, every in-context message; otherwise the latest summary,
        then the messages from its first kept entry on."""
        compaction = self.latest_compaction()
        if compaction is None:
            return [entry for entry in self.messages() if in_context(entry)]
        branch_ids = [line["id"] for line in self.branch()]
        compaction_position = branch_ids.index(compaction.id)
        first_kept = compaction.first_kept_entry_id
        kept_from = (
            branch_ids.index(first_kept)
            if first_kept in branch_ids[:compaction_position]
            else compaction_position
        )
        kept_ids = set(branch_ids[kept_from:])
        kept = [entry for entry in self.messages() if entry.id in kept_ids and in_context(entry)]
        summary = summary_entry(compaction.id, compaction.summary, compaction.timestamp_ms)
        return [summary, *kept]


__all__ = [
    "CompactionRecord",
    "LineProblem",
    "SessionError",
    "SessionFile",
    "read_session_bytes",
]
