"""One writer per session file: a lock in the session's state folder (Reliability II, 5).

Every host writes a session through :class:`~pifold_agent.sessions.SessionFile`, whether it
folds (the engine then takes its own lock on the same folder as well), runs ``--no-fold``,
or is the app; so the session file's own lock is what keeps two of them from appending to
one file, where each would extend the branch it read and fork the tree, dropping the other's
work off the current branch. The lock is :class:`pifold_core.lock.SessionLock` on
``<state>/session-lock``: ``flock``, so the kernel frees it when its process ends, however it
ends, and a stale pid left in the file never blocks anyone.

The lock lives in the state folder (created 0700 beside the file) rather than beside the
session file, so the project folder keeps Pi's layout: session files and their folders.
"""

from __future__ import annotations

from pathlib import Path

from pifold_agent.sessions.errors import SessionBusy, SessionError
from pifold_agent.sessions.paths import make_private_directory, state_directory
from pifold_core.lock import LockHeld, LockHolder, SessionLock, holder_of

SESSION_LOCK_NAME = "session-lock"
"""The session file's lock, inside its state folder (the engine's own is ``lock``)."""


def session_lock_path(session_path: Path) -> Path:
    """Where the lock of the session file ``session_path`` lives (not created here)."""
    return state_directory(session_path) / SESSION_LOCK_NAME


def lock_session(session_path: Path, session_id: str) -> SessionLock:
    """Take the writer's lock of a session file without waiting.

    Raises:
        SessionBusy: another open holds it (in this process or another); names the holder.
        SessionError: a file stands where the state folder should be.
        OSError: the state folder or the lock file cannot be made.
    """
    folder = state_directory(session_path)
    if folder.exists() and not folder.is_dir():
        raise SessionError(
            f"the state folder of session {session_id}, {folder}, is not a folder: move it "
            "aside (the session file holds every message; a new state is built from it)"
        )
    make_private_directory(folder)
    try:
        return SessionLock.acquire_file(session_lock_path(session_path))
    except LockHeld as error:
        raise SessionBusy(session_id, session_path, error.holder) from None


def session_holder(session_path: Path) -> LockHolder | None:
    """Who is writing the session file now (``None``: nobody); only looks."""
    return holder_of(session_lock_path(session_path))


__all__ = ["SESSION_LOCK_NAME", "lock_session", "session_holder", "session_lock_path"]
