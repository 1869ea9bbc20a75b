"""One writer per session: an exclusive lock on ``<state>/lock`` (issue 9, defect 1).

The lock is ``fcntl.flock`` on an open file, so the kernel releases it when the holder's
process ends in any way, a SIGKILL included: a crashed process never leaves a session stuck.
The holder writes its pid and the time it took the lock into the file, so a refused opener
can say who holds it. The file's contents are only a message; the kernel's lock is the truth,
so a stale pid left by a dead holder is never mistaken for a live one.

``flock`` locks belong to an open file description, so a second acquire in the same process
(a second ``open`` of the file) is refused exactly like one from another process.

The same lock guards other files one writer at a time: :meth:`SessionLock.acquire_file` and
:func:`holder_of` take the lock file's path (the agent's session file lock uses them).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO

LOCK_NAME = "lock"
"""The lock file's name inside the state folder."""

LOCK_MODE = 0o600
"""The lock file is private to the user, like the log."""

_PROBE_RETRIES = 5
_PROBE_PAUSE_SECONDS = 0.01
""":func:`current_holder` holds a shared lock for an instant; an acquire that meets a held
lock tries again a few times (50 ms in all), so a look from ``pifold doctor`` never turns a
writer away."""


@dataclass(frozen=True, slots=True)
class LockHolder:
    """Who holds a session's lock, as the holder wrote it."""

    pid: int | None
    """The holder's process id, or ``None`` when it has not written it yet."""
    since: str | None
    """When it took the lock (UTC, ISO 8601), or ``None`` when unknown."""

    def describe(self) -> str:
        """``pid 1234 since 2026-12-01T20:04:20Z``, or what is known of it."""
        who = f"pid {self.pid}" if self.pid is not None else "a process that has not said its pid"
        return f"{who} since {self.since}" if self.since else who


class LockHeld(Exception):
    """The lock is held by another open of the session (this process or another)."""

    def __init__(self, path: Path, holder: LockHolder) -> None:
        super().__init__(f"{path} is held by {holder.describe()}")
        self.path = path
        """The lock file."""
        self.holder = holder
        """Who holds it."""


def _read_holder(handle: IO[bytes]) -> LockHolder:
    handle.seek(0)
    try:
        value = json.loads(handle.read(4096).decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        return LockHolder(None, None)
    if not isinstance(value, dict):
        return LockHolder(None, None)
    pid, since = value.get("pid"), value.get("since")
    return LockHolder(
        pid if isinstance(pid, int) and not isinstance(pid, bool) else None,
        since if isinstance(since, str) else None,
    )


def _open_lock_file(path: Path) -> IO[bytes]:
    descriptor = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, LOCK_MODE)
    try:
        # The mode given to os.open is cut by the umask; set it outright.
        os.fchmod(descriptor, LOCK_MODE)
    except BaseException:
        os.close(descriptor)
        raise
    return os.fdopen(descriptor, "r+b", buffering=0)


def _lock_exclusively(handle: IO[bytes]) -> None:
    """Take the exclusive lock without waiting on a writer; raises ``BlockingIOError``."""
    for _ in range(_PROBE_RETRIES):
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            # A writer, or a look that gives the lock back at once: a refusal waits a moment.
            time.sleep(_PROBE_PAUSE_SECONDS)
    fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)


class SessionLock:
    """The writer's lock on one state folder; release it with :meth:`release`."""

    def __init__(self, path: Path, handle: IO[bytes]) -> None:
        self.path = path
        """The lock file."""
        self._handle: IO[bytes] | None = handle

    @classmethod
    def acquire(cls, state_dir: Path) -> SessionLock:
        """Take the lock of ``state_dir`` (which must exist) without waiting.

        Raises:
            LockHeld: another open holds it; names the holder.
        """
        return cls.acquire_file(Path(state_dir) / LOCK_NAME)

    @classmethod
    def acquire_file(cls, path: Path) -> SessionLock:
        """Take the lock held on the file ``path`` (created 0600 when missing; its folder
        must exist) without waiting.

        Raises:
            LockHeld: another open holds it; names the holder.
        """
        handle = _open_lock_file(path)
        try:
            _lock_exclusively(handle)
        except BlockingIOError:
            holder = _read_holder(handle)
            handle.close()
            raise LockHeld(path, holder) from None
        except BaseException:
            handle.close()
            raise
        try:
            since = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
            record = json.dumps({"pid": os.getpid(), "since": since}).encode("utf-8")
            handle.truncate(0)
            handle.seek(0)
            handle.write(record + b"\n")
        except BaseException:
            handle.close()  # closing the file releases the lock
            raise
        return cls(path, handle)

    @property
    def held(self) -> bool:
        """Whether this object still holds the lock."""
        return self._handle is not None

    def release(self) -> None:
        """Give the lock up (idempotent). The holder's record stays: it is only a message."""
        if self._handle is not None:
            handle, self._handle = self._handle, None
            with contextlib.suppress(OSError):
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
            handle.close()


def current_holder(state_dir: Path) -> LockHolder | None:
    """Who holds the lock of ``state_dir`` now, or ``None`` when nobody does.

    Only looks: a free lock is taken for an instant (shared, so it never blocks a reader
    beside it) and given back, and nothing is created when the folder has no lock file.
    """
    return holder_of(Path(state_dir) / LOCK_NAME)


def holder_of(path: Path) -> LockHolder | None:
    """Who holds the lock on the file ``path`` now, or ``None`` (see :func:`current_holder`)."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    with os.fdopen(descriptor, "rb", buffering=0) as handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return _read_holder(handle)
        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
    return None


def describe_holder(holder: LockHolder | None) -> str:
    """A line for the report: who holds the session open, or that nobody does."""
    if holder is None:
        return "not open (no writer holds its lock)"
    alive = _alive(holder.pid)
    return f"open for writing by {holder.describe()}" + ("" if alive else " (pid not seen)")


def _alive(pid: int | None) -> bool:
    if pid is None:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


__all__ = [
    "LOCK_MODE",
    "LOCK_NAME",
    "LockHeld",
    "LockHolder",
    "SessionLock",
    "current_holder",
    "describe_holder",
    "holder_of",
]
